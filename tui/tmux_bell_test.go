package tui

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// oscSeq matches an operating system command, ended by BEL or ST.
var oscSeq = regexp.MustCompile(`\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)`)

// With --bell, a session that starts waiting for permission sorts first,
// shows what it waits for, and the terminal gets one BEL: read from the
// pane's raw output (tmux pipe-pane), through the real binary.
func TestTmuxNeedsInputRingsTheBell(t *testing.T) {
	root := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(filepath.Join(root, ".spcstr"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := startTUIAt(t, root, 120, 40, "--bell")
	out := filepath.Join(t.TempDir(), "pane.out")
	p.run("pipe-pane", "-o", "-t", p.session, "cat >> "+out)
	bells := func() int {
		b, _ := os.ReadFile(out)
		// A BEL that ends an OSC (the window title, the background color
		// query, sent whenever the program gets to them) is no bell.
		return bytes.Count(oscSeq.ReplaceAll(b, nil), []byte("\a"))
	}

	id, newer := "a5c5e551-0000-4000-8000-000000000001", "7e3e5e55-0000-4000-8000-000000000002"
	p.hook(payload(id, "SessionStart", `,"source":"startup"`))
	p.hook(payload(id, "UserPromptSubmit", `,"prompt":"Fix the login redirect"`))
	p.hook(payload(newer, "SessionStart", `,"source":"startup"`))
	p.hook(payload(newer, "UserPromptSubmit", `,"prompt":"A newer busy session"`))
	p.waitFor("A newer busy session", 30*time.Second)
	if n := bells(); n != 0 {
		t.Fatalf("%d bells before any session waited", n)
	}
	p.hook(payload(id, "Notification", `,"notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"`))
	p.waitFor("1 need you", 30*time.Second)
	scr := p.waitFor("Claude needs your permission", 30*time.Second)
	deadline := time.Now().Add(30 * time.Second)
	for bells() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := bells(); n != 1 {
		s, _ := p.capture()
		t.Fatalf("%d bells when the session started waiting, want 1 (at %v):\n%s", n, scr, s)
	}
	// It sorts first although the other session is newer.
	s, _ := p.capture()
	if i, j := bytes.Index([]byte(s), []byte("Fix the login redirect")), bytes.Index([]byte(s), []byte("A newer busy session")); i < 0 || j < 0 || i > j {
		t.Fatalf("the waiting session is not first:\n%s", s)
	}
	// The next activity clears it, with no second bell.
	p.hook(payload(id, "PreToolUse", `,"tool_name":"Bash","tool_input":{"command":"ls"}`))
	deadline = time.Now().Add(30 * time.Second)
	for {
		s, _ := p.capture()
		if !bytes.Contains([]byte(s), []byte("need you")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the activity did not clear the wait:\n%s", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := bells(); n != 1 {
		t.Fatalf("%d bells after the wait cleared, want 1", n)
	}
}
