package recorder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/state"
)

// The event goes into its log first, before any gate runs and before
// state.json is written; when the state cannot be updated at all (here the
// session's folder is a file), the event is logged all the same, and the
// error follows in answers.json.
func TestRunLogsEventWhenStateFails(t *testing.T) {
	p := newProject(t)
	pl := `{"session_id":"s-ok","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	p.run([]byte(pl), "")
	if got := len(p.log("pre_tool_use")); got != 1 {
		t.Fatalf("%d entries after one hook, want 1", got)
	}
	if s := p.state("s-ok"); s.EventCounts["PreToolUse"] != 1 {
		t.Fatalf("state counts %v", s.EventCounts)
	}

	blocked := filepath.Join(p.root, state.DirName, "sessions", "s-bad")
	if err := os.WriteFile(blocked, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr := p.run([]byte(strings.Replace(pl, "s-ok", "s-bad", 1)), "")
	if !strings.Contains(stderr, "update state of session s-bad") {
		t.Fatalf("stderr = %q, want the state error", stderr)
	}
	entries := p.log("pre_tool_use")
	if len(entries) != 2 || entries[1]["session_id"] != "s-bad" {
		t.Fatalf("the event of the failed update was not logged: %v", entries)
	}
	answers := p.log("answers")
	if len(answers) != 1 || answers[0]["session_id"] != "s-bad" || answers[0]["timestamp"] != entries[1]["timestamp"] {
		t.Fatalf("answers.json = %v, want the failed update's record, joined to its event", answers)
	}
	if msg, _ := answers[0]["error"].(string); !strings.Contains(msg, "update state of session s-bad") {
		t.Fatalf("answer error = %q", msg)
	}
}
