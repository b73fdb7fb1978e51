package tui

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hookIn runs spcstr hook as Claude Code would from the tmux pane pane of
// p's server: its environment carries TMUX and TMUX_PANE.
func (p *tmuxPane) hookIn(pane, payload string) {
	p.t.Helper()
	sock := strings.TrimSpace(p.run("display-message", "-p", "#{socket_path}"))
	cmd := exec.Command(p.bin, "hook")
	cmd.Stdin = strings.NewReader(payload)
	cmd.Dir = p.root
	cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR="+p.root, "SPCSTR_REGISTRY="+p.reg, "CLAUDE_PID="+strconv.Itoa(os.Getpid()),
		"TMUX="+sock+",1,0", "TMUX_PANE="+pane)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		p.t.Fatalf("spcstr hook: %v\n%s", err, stderr.String())
	}
}

// until polls f until it is true or the deadline passes.
func until(t *testing.T, what string, timeout time.Duration, f func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, got := f()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v; last: %s", what, timeout, got)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestTmuxFocusGoesToThePane: two sessions in two panes of another window;
// o on each makes its window and pane the active ones.
func TestTmuxFocusGoesToThePane(t *testing.T) {
	p := startTUI(t, 120, 40)
	dash := strings.TrimSpace(p.run("display-message", "-p", "-t", p.session, "#{pane_id}"))
	target := strings.TrimSpace(p.run("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", p.session, "sh"))
	other := strings.TrimSpace(p.run("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", target, "sh"))
	p.run("select-pane", "-t", other) // the target pane is not the active one of its window
	screen := func(s string) func() (bool, string) {
		return func() (bool, string) {
			out, err := exec.Command(p.tmux, "-S", p.socket, "capture-pane", "-p", "-t", dash).Output()
			return err == nil && strings.Contains(string(out), s), string(out)
		}
	}
	active := func(pane string) func() (bool, string) {
		return func() (bool, string) {
			out, _ := exec.Command(p.tmux, "-S", p.socket, "display-message", "-p", "-t", pane, "#{window_active}#{pane_active}").Output()
			return strings.TrimSpace(string(out)) == "11", string(out)
		}
	}
	a, b := "f0c05a11-0000-4000-8000-00000000000a", "f0c05b22-0000-4000-8000-00000000000b"
	p.hookIn(other, payload(a, "SessionStart", `,"source":"startup"`))
	p.hookIn(other, payload(a, "UserPromptSubmit", `,"prompt":"alpha in the other pane"`))
	p.hookIn(target, payload(b, "SessionStart", `,"source":"startup"`))
	p.hookIn(target, payload(b, "UserPromptSubmit", `,"prompt":"beta in the target pane"`))
	until(t, "both sessions listed", 10*time.Second, screen("alpha in the other pane"))
	until(t, "both sessions listed", 10*time.Second, screen("beta in the target pane"))

	// Following the newest: beta is selected. o goes to its pane.
	until(t, "beta selected", 10*time.Second, screen("f0c05b22-0000"))
	p.run("send-keys", "-t", dash, "o")
	until(t, "the target pane active after o", 10*time.Second, active(target))
	until(t, "o says where it went", 10*time.Second, screen("went to tmux pane "+target))

	// The other session: its pane becomes the active one.
	p.run("send-keys", "-t", dash, "j")
	until(t, "alpha selected", 10*time.Second, screen("f0c05a11-0000"))
	p.run("send-keys", "-t", dash, "o")
	until(t, "the other pane active after o", 10*time.Second, active(other))

	// A pane that is gone: it says so.
	p.run("kill-pane", "-t", other)
	p.run("send-keys", "-t", dash, "o")
	until(t, "a gone pane reported", 10*time.Second, screen("is gone"))
}
