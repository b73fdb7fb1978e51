package tui

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// TestTmuxTimelineAndEntry runs the real dashboard: t shows the session's
// lane by its title, a mark for a gate's deny and a bar for its agent;
// enter on the deny (the newest mark) shows its reason whole, longer than
// the pane; esc, esc come back.
func TestTmuxTimelineAndEntry(t *testing.T) {
	p := startTUI(t, 60, 30)
	id := "71e11e11-0000-4000-8000-000000000001"
	p.hook(payload(id, "SessionStart", `,"source":"startup"`))
	p.hook(payload(id, "UserPromptSubmit", `,"prompt":"timeline lane title"`))
	agent := `,"tool_name":"Agent","tool_use_id":"t1","tool_input":{"description":"review","prompt":"p","subagent_type":"reviewer"}`
	p.hook(payload(id, "PreToolUse", agent))
	p.hook(payload(id, "PostToolUse", agent+`,"tool_response":{"status":"completed"}`))
	reason := "commit_plan is unsatisfied: write the plan first, then commit; this reason is longer than the pane and ends with END-OF-REASON"
	rec, _ := json.Marshal(gate.Record{SessionID: id, Timestamp: time.Now().UTC(), Source: "requirements:commit_plan", Hook: "PreToolUse", Decision: "deny", Reason: reason})
	l := state.Layout{Root: p.root}
	if err := logs.Append(context.Background(), l.LogPath(logs.Name(logs.Decisions, "")), rec, logs.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(l.LogsDir(), time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	p.waitFor("timeline lane title", 10*time.Second)
	p.run("send-keys", "-t", p.session, "t")
	p.waitFor("Timeline · last 5m", 10*time.Second)
	p.waitFor("✗", 10*time.Second)
	p.waitFor("━", 10*time.Second)
	p.run("send-keys", "-t", p.session, "Enter")
	p.waitFor("the tool call was refused", 10*time.Second)
	p.waitFor("END-OF-REASON", 10*time.Second)
	p.run("send-keys", "-t", p.session, "Escape")
	p.waitFor("Timeline · last 5m", 10*time.Second)
	p.run("send-keys", "-t", p.session, "Escape")
	p.waitFor("? keys", 10*time.Second)
}
