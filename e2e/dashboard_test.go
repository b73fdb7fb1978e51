package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/e2e/harness"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/permchan"
	"github.com/dylan-gluck/spcstr/logs"
)

// dashPane is spcstr tui running in a private tmux server.
type dashPane struct {
	t             *testing.T
	tmux, sock    string
	session, last string
}

func (p *dashPane) run(args ...string) string {
	p.t.Helper()
	out, err := exec.Command(p.tmux, append([]string{"-S", p.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (p *dashPane) screen() string {
	out, err := exec.Command(p.tmux, "-S", p.sock, "capture-pane", "-p", "-t", p.session).Output()
	if err != nil {
		return ""
	}
	p.last = string(out)
	return p.last
}

// waitScreen waits until the screen holds every one of want, or the run
// ended (done closed) or the budget is spent.
func (p *dashPane) waitScreen(done <-chan struct{}, budget time.Duration, want ...string) bool {
	p.t.Helper()
	deadline := time.Now().Add(budget)
	for time.Now().Before(deadline) {
		s := p.screen()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(s, w)
		}
		if ok {
			return true
		}
		select {
		case <-done:
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
	return false
}

// TestDashboardAnswersPermissions runs the real Claude Code in permission
// mode default with spcstr's hook while spcstr tui is open on the project
// in tmux; the test plays the user at the dashboard: each Bash call's
// PermissionRequest shows as a card and is answered with a key (issue 31).
func TestDashboardAnswersPermissions(t *testing.T) {
	requireHarness(t)
	tm, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("SPCSTR_E2E_REQUIRE") == "1" {
			t.Fatal("tmux is not installed (scripts/test installs it)")
		}
		t.Skip("tmux is not installed: run scripts/test, or install tmux")
	}
	base := t.TempDir()
	out := filepath.Join(base, "out")
	// The channel's folder: short (a socket's path is bounded) and private.
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(rt) })
	reg := filepath.Join(base, "registry.json")
	scFile, err := filepath.Abs(filepath.Join("testdata", "dashboard", "permissions-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The hook's wait stays inside the harness's 60 s hook timeout.
	hook := "XDG_RUNTIME_DIR=" + harness.ShellQuote(rt) + " SPCSTR_PERMISSION_WAIT=50s SPCSTR_REGISTRY=" + harness.ShellQuote(reg) +
		" " + harness.ShellQuote(spcstrBin) + " hook"
	p, ready, project := startDashboard(t, tm, rt, reg)
	type result struct {
		res *harness.Result
		err error
	}
	done := make(chan struct{})
	resCh := make(chan result, 1)
	go func() {
		defer close(done)
		res, err := env.Run(t.Context(), harness.Options{Scenario: scFile, HookCommand: hook, OutDir: out, Timeout: 5 * time.Minute, Ready: ready})
		resCh <- result{res, err}
	}()

	const denyMsg = "use make instead"
	steps := []struct {
		command string
		keys    [][]string
	}{
		{"touch allowed.txt", [][]string{{"y"}}},
		{"touch denied.txt", [][]string{{"m"}, {"-l", denyMsg}, {"Enter"}}},
		{"touch always.txt", [][]string{{"a"}}},
	}
	for _, s := range steps {
		if !p.waitScreen(done, 3*time.Minute, "needs permission", s.command) {
			r := <-resCh
			t.Fatalf("no card for %q (run error %v); screen:\n%s", s.command, r.err, p.last)
		}
		for _, k := range s.keys {
			p.run(append([]string{"send-keys", "-t", p.session}, k...)...)
		}
		// The card goes once the hook took the answer.
		deadline := time.Now().Add(time.Minute)
		for strings.Contains(p.screen(), s.command) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
	}
	r := <-resCh
	if r.err != nil {
		t.Fatalf("harness run: %v", r.err)
	}
	if fails := harness.Check(scFile, r.res); len(fails) > 0 {
		claudeErr, _ := os.ReadFile(filepath.Join(out, "claude.stderr"))
		t.Fatalf("Claude Code did not do what the answers said:\n%s\nclaude.stderr:\n%s", strings.Join(fails, "\n"), tail(claudeErr, 2000))
	}

	// Claude Code ran the allowed and the always-allowed commands (the
	// second identical call without asking), and not the denied one.
	captured := readCaptured(t, filepath.Join(out, "captured.jsonl"))
	var perms, ran []string
	for _, c := range captured {
		var in struct {
			Command string `json:"command"`
		}
		_ = json.Unmarshal(c.p.ToolInput, &in)
		switch c.Event {
		case "PermissionRequest":
			perms = append(perms, in.Command)
		case "PostToolUse":
			if c.p.ToolName == "Bash" {
				ran = append(ran, in.Command)
			}
		}
	}
	wantEqual(t, "PermissionRequest commands", strings.Join(perms, "|"), "touch allowed.txt|touch denied.txt|touch always.txt")
	wantEqual(t, "commands run", strings.Join(ran, "|"), "touch allowed.txt|touch always.txt|touch always.txt")

	// The deny's message reached Claude (in the next request's tool result).
	reqs, err := os.ReadFile(filepath.Join(out, "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(reqs, []byte(denyMsg)) {
		t.Errorf("the deny message %q did not reach the model", denyMsg)
	}

	// Each answer is a decision record, from the dashboard.
	var recs []gate.Record
	err = logs.ScanFile(filepath.Join(*project, ".spcstr", "logs", "decisions.json"), func(raw []byte) error {
		var rec gate.Record
		if err := json.Unmarshal(raw, &rec); err != nil {
			return err
		}
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rec := range recs {
		if rec.Hook == "PermissionRequest" {
			got = append(got, rec.Source+":"+rec.Decision+":"+strconv.Quote(rec.Message))
		}
	}
	wantEqual(t, "decision records", strings.Join(got, " "),
		`dashboard:allow:"" dashboard:deny:"`+denyMsg+`" dashboard:allow:""`)
}

// startDashboard returns a dashboard pane to be started by ready (the
// harness's Ready: once the project exists, before Claude Code starts),
// which waits until the dashboard holds the project's lease; project is
// set then.
func startDashboard(t *testing.T, tm, rt, reg string) (*dashPane, func(string) error, *string) {
	t.Helper()
	// A socket in a folder of the test's own: with -L, tmux 3.3 leaves a
	// killed server's socket in /tmp/tmux-UID.
	sockDir, err := os.MkdirTemp("", "tm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	p := &dashPane{t: t, tmux: tm, sock: filepath.Join(sockDir, "s"), session: "dash"}
	t.Cleanup(func() { _ = exec.Command(tm, "-S", p.sock, "kill-server").Run() })
	project := new(string)
	ready := func(proj string) error {
		*project = proj
		shell := fmt.Sprintf("exec env XDG_RUNTIME_DIR=%s SPCSTR_REGISTRY=%s TERM=xterm-256color %s tui -C %s",
			harness.ShellQuote(rt), harness.ShellQuote(reg), harness.ShellQuote(spcstrBin), harness.ShellQuote(proj))
		p.run("new-session", "-d", "-s", p.session, "-x", "120", "-y", "40", shell)
		// The dashboard holds the lease once its socket listens.
		sock := permchan.SocketPath(permchan.Dir(func(k string) string {
			if k == "XDG_RUNTIME_DIR" {
				return rt
			}
			return ""
		}), proj)
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			if fi, err := os.Lstat(sock); err == nil && fi.Mode()&os.ModeSocket != 0 {
				return nil
			}
			time.Sleep(20 * time.Millisecond)
		}
		return fmt.Errorf("the dashboard did not take the lease (%s); screen:\n%s", sock, p.screen())
	}

	return p, ready, project
}
