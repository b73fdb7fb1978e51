package recorder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/state"
)

// The event goes into its log under the session's lock, before state.json
// is written; when the state cannot be updated at all (here the session's
// folder is a file), it is logged all the same, with the error.
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
	outcome, _ := entries[1]["outcome"].(map[string]any)
	if msg, _ := outcome["error"].(string); !strings.Contains(msg, "update state of session s-bad") {
		t.Fatalf("outcome error = %q", msg)
	}
}
