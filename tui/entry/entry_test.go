package entry_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/tui/entry"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

// An event logged before its gates ran carries no answer: the view shows
// the one read from answers.json beside the entry.
func TestShowsTheAnswerFromAnswersJSON(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	raw := []byte(`{"timestamp":"2026-03-04T05:06:07Z","session_id":"s1","event":"PreToolUse","input":{"tool_name":"Bash"},"outcome":{"duration_ms":1}}`)
	for _, tc := range []struct {
		name   string
		answer *logs.Answer
		want   []string
		not    []string
	}{
		{"answered", &logs.Answer{Answer: json.RawMessage(`{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no \u001b[31mred"}}`), Decisions: 2, DurationMS: 3.5},
			[]string{"Answer", `"permissionDecision": "deny"`, "decisions  2", "gates took 3.5 ms"}, []string{"\x1b[31m"}},
		{"nothing answered", &logs.Answer{Error: "state unavailable"}, []string{"Answer", "nothing: the event went on", "state unavailable"}, []string{"permissionDecision"}},
		{"no record", nil, nil, []string{"Answer", "gates took"}},
	} {
		m := entry.New(theme.New(true, true))
		m.SetSize(100, 60)
		m.Open(store.Event{At: at, Session: "s1", Event: "PreToolUse", Tool: "Bash"})
		m.SetAnswer(tc.answer)
		m.SetRaw(raw, true)
		view := m.View()
		for _, w := range tc.want {
			if !strings.Contains(view, w) {
				t.Errorf("%s: view lacks %q:\n%s", tc.name, w, view)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(view, w) {
				t.Errorf("%s: view has %q:\n%s", tc.name, w, view)
			}
		}
	}
}
