package store_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/tui/store"
)

func TestFindAnswer(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 3, 4, 5, 6, 7, 8000, time.UTC)
	const sid = "7d5c1a0e-2b3f-4c4d-8e9f-0a1b2c3d4e5f"
	entry := func(tool string, at time.Time, o *logs.Outcome) []byte {
		t.Helper()
		payload := `{"session_id":"` + sid + `","hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_use_id":"t-` + tool + `"}`
		line, err := (&logs.Entry{Timestamp: at, SessionID: sid, Event: "PreToolUse", Input: json.RawMessage(payload), Outcome: o}).Encode()
		if err != nil {
			t.Fatal(err)
		}
		return line
	}
	answer := func(tool, answer string, decisions int) {
		t.Helper()
		line, err := json.Marshal(logs.Answer{Timestamp: at, SessionID: sid, Event: "PreToolUse", ToolUseID: "t-" + tool,
			Answer: json.RawMessage(answer), Decisions: decisions, DurationMS: 4})
		if err != nil {
			t.Fatal(err)
		}
		if err := logs.Append(context.Background(), filepath.Join(dir, "answers.json"), line, logs.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	// Two parallel calls logged at the same instant, answered in turn.
	answer("Bash", `{"hookSpecificOutput":{"permissionDecision":"deny"}}`, 1)
	answer("Write", `{"systemMessage":"careful"}`, 2)
	for _, tc := range []struct {
		name      string
		raw       []byte
		want      string
		decisions int
	}{
		{"new-style denied call", entry("Bash", at, &logs.Outcome{DurationMS: 1}), `"deny"`, 1},
		{"new-style warned call", entry("Write", at, &logs.Outcome{DurationMS: 1}), `"careful"`, 2},
		{"no answer on record", entry("Read", at, &logs.Outcome{DurationMS: 1}), "", 0},
		{"another instant", entry("Bash", at.Add(time.Millisecond), nil), "", 0},
		{"old entry with its answer", entry("Edit", at, &logs.Outcome{Answer: json.RawMessage(`{"decision":"old"}`), Decisions: 3}), `"old"`, 3},
		{"not an entry", []byte(`[1]`), "", 0},
	} {
		a, ok := store.FindAnswer(dir, tc.raw)
		if ok != (tc.want != "") || !strings.Contains(string(a.Answer), tc.want) || a.Decisions != tc.decisions {
			t.Errorf("%s: %v %s (%d decisions), want %s (%d)", tc.name, ok, a.Answer, a.Decisions, tc.want, tc.decisions)
		}
	}
}
