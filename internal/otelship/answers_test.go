package otelship_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/otelship"
	"github.com/dylan-gluck/spcstr/logs"
)

// A hook's answer is in answers.json, not in its event's entry: what
// spcstr otel ships about it comes from there, joined to the event.
func TestAnswerShippedFromAnswersJSON(t *testing.T) {
	l := newProject(t)
	replay(t, l, "basic", "Bash")
	// A new-style pair: no event entry carries the answer.
	data, err := os.ReadFile(filepath.Join(l.LogsDir(), "pre_tool_use.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"answer"`) {
		t.Fatal("pre_tool_use.json carries an answer: not the log layout under test")
	}
	if _, err := os.Stat(filepath.Join(l.LogsDir(), "answers.json")); err != nil {
		t.Fatal(err)
	}
	r := newReceiver(t)
	ship(t, l, r, otelship.Options{IncludeContent: true})
	checkAnswers(t, r, 2)
}

// An entry written before answers.json holds its answer in its outcome:
// it is shipped the same.
func TestAnswerShippedFromOldOutcome(t *testing.T) {
	l := newProject(t)
	const sid = "0b9a3c52-1f0e-4f4e-9d62-3a1f2b0c9d11"
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, tool := range []string{"Bash", "Read"} {
		o := &logs.Outcome{DurationMS: 2}
		if tool == "Bash" {
			o.Answer = json.RawMessage(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`)
			o.Decisions = 1
		}
		payload := `{"session_id":"` + sid + `","hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_use_id":"t` + tool + `","tool_input":{}}`
		e := logs.Entry{Timestamp: at.Add(time.Duration(i) * time.Second), SessionID: sid, Event: "PreToolUse", Input: json.RawMessage(payload), Outcome: o}
		line, err := e.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := logs.Append(context.Background(), filepath.Join(l.LogsDir(), "pre_tool_use.json"), line, logs.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	r := newReceiver(t)
	ship(t, l, r, otelship.Options{IncludeContent: true})
	checkAnswers(t, r, 1)
}

// checkAnswers checks that the Bash PreToolUse records (want of them) say
// the hook answered a deny with one decision, and the others say nothing.
func checkAnswers(t *testing.T, r *receiver, want int) {
	t.Helper()
	bash := 0
	for _, rec := range r.uniqueLogs(t) {
		if attr(rec.Attributes, "event.name") != "spcstr.pre_tool_use" {
			continue
		}
		answered, answer := attr(rec.Attributes, "spcstr.hook.answered"), attr(rec.Attributes, "spcstr.hook.answer")
		if attr(rec.Attributes, "tool_name") != "Bash" {
			if answered != "" || answer != "" {
				t.Errorf("%s call shipped an answer: %v", attr(rec.Attributes, "tool_name"), rec.Attributes)
			}
			continue
		}
		bash++
		if answered != "true" || !strings.Contains(answer, `"permissionDecision":"deny"`) || attr(rec.Attributes, "spcstr.decisions") != "1" {
			t.Errorf("denied Bash call's record: %v", rec.Attributes)
		}
	}
	if bash != want {
		t.Errorf("%d Bash PreToolUse records, want %d", bash, want)
	}
}
