package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/projects"
)

// TestTmuxAllProjects runs spcstr tui --all in a real terminal: a session
// started in a recorded project shows up live under it, enter opens that
// project's dashboard, q there comes back to the projects, and q quits.
func TestTmuxAllProjects(t *testing.T) {
	tm := needTmux(t)
	bin := spcstrBinary(t)
	base := t.TempDir()
	reg := filepath.Join(base, "registry.json")
	var roots []string
	for _, name := range []string{"alpha", "beta"} {
		root := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Join(root, ".spcstr"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := projects.Remember(context.Background(), filepath.Join(base, projects.FileName), root, time.Now()); err != nil {
			t.Fatal(err)
		}
		roots = append(roots, root)
	}
	p := &tmuxPane{t: t, tmux: tm, socket: tmuxSocket(t), root: roots[1], reg: reg, bin: bin, session: "all"}
	shell := fmt.Sprintf("exec env HOME=%s SPCSTR_REGISTRY=%s TERM=xterm-256color %s tui --all", base, reg, bin)
	p.run("new-session", "-d", "-s", p.session, "-x", "100", "-y", "24", shell)
	t.Cleanup(func() { exec.Command(tm, "-S", p.socket, "kill-server").Run() })
	p.waitFor("2 projects", 30*time.Second)
	p.waitFor("no sessions yet", 30*time.Second)

	// A session starts in beta: within a refresh it is listed, live, and
	// beta moves first.
	id := "a11a11a1-0000-4000-8000-000000000001"
	p.hook(payload(id, "SessionStart", `,"source":"startup"`))
	p.hook(payload(id, "UserPromptSubmit", `,"prompt":"all-projects-marker"`))
	p.waitFor("all-projects-marker", 30*time.Second)
	p.waitFor("1 live", 30*time.Second)

	// The cursor stayed on alpha, now second: up, then enter.
	p.run("send-keys", "-t", p.session, "k")
	p.run("send-keys", "-t", p.session, "Enter")
	p.waitFor("spcstr beta", 30*time.Second)
	p.waitFor("a11a11a1", 30*time.Second)
	p.run("send-keys", "-t", p.session, "?")
	p.waitFor("all projects", 30*time.Second) // q's help in the key list
	p.run("send-keys", "-t", p.session, "q")  // q closes the help
	p.waitFor("? keys", 30*time.Second)       // the footer again
	p.run("send-keys", "-t", p.session, "q")
	p.waitFor("enter open project", 30*time.Second)
	p.run("send-keys", "-t", p.session, "q")
	deadline := time.Now().Add(30 * time.Second)
	for exec.Command(tm, "-S", p.socket, "has-session", "-t", p.session).Run() == nil {
		if time.Now().After(deadline) {
			scr, _ := p.capture()
			t.Fatalf("q did not quit the list:\n%s", scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
