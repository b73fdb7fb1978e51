package recorder

import (
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/gate"
)

// A panic inside the hook (here: while the gates are built, under the
// session's lock, before the event is logged) is one sanitised line on
// stderr, never a stack trace; the event is kept in rejected.json with the
// reason, the lock is released, and the next hook records normally.
func TestPanicIsRecordedNotTraced(t *testing.T) {
	p := newProject(t)
	p.gates = func(gate.Setup) []gate.Gate { panic("boom \x1b]0;owned\x07") }
	const id = "panicky"
	_, stderr := p.run([]byte(`{"hook_event_name":"Stop","session_id":"`+id+`"}`), "")
	if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, ".go:") {
		t.Errorf("stack trace on stderr: %s", stderr)
	}
	if !strings.Contains(stderr, "internal error: boom") || strings.ContainsAny(stderr, "\x1b\x07") {
		t.Errorf("stderr = %q", stderr)
	}
	rej := p.log("rejected")
	if len(rej) != 1 || !strings.Contains(rej[0]["reason"].(string), "internal error: boom") {
		t.Fatalf("rejected.json = %v", rej)
	}
	p.gates = func(gate.Setup) []gate.Gate { return nil }
	p.run([]byte(`{"hook_event_name":"Stop","session_id":"`+id+`"}`), "")
	if n := len(p.log("stop")); n != 1 {
		t.Errorf("the next hook logged %d events (lock left held?)", n)
	}
}
