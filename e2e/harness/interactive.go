package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Interactive is a run of the full-screen client in tmux (the recipe of
// the harness README's "Interactive mode"), for what only it does: the
// status line. Start prepares the project and the mock as Run does, writes
// HOME/.claude.json so no first-run screen appears, and starts claude in a
// detached tmux session; the caller sends keys and waits on conditions.
type Interactive struct {
	Result
	sock string
	mock *Mock
	tmp  string
}

// InteractiveOptions are Start's inputs: Options, plus the settings'
// statusLine command ("" for none).
type InteractiveOptions struct {
	Options
	StatusLine string
}

// Start starts the interactive client on the scenario.
func (env *Env) Start(ctx context.Context, o InteractiveOptions) (*Interactive, error) {
	if _, err := exec.LookPath("tmux"); err != nil {
		return nil, fmt.Errorf("the interactive client needs tmux: %w", err)
	}
	out, err := filepath.Abs(o.OutDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	if out, err = filepath.EvalSymlinks(out); err != nil {
		return nil, err
	}
	r := &Interactive{Result: Result{OutDir: out, Project: filepath.Join(out, "project"), Home: filepath.Join(out, "home")}}
	sc, err := LoadScenario(o.Scenario, r.Project, out)
	if err != nil {
		return nil, err
	}
	if o.StatusLine != "" {
		if sc.Settings == nil {
			sc.Settings = map[string]any{}
		}
		sc.Settings["statusLine"] = map[string]any{"type": "command", "command": o.StatusLine}
	}
	if err := env.prepare(sc, &r.Result, o.HookCommand, o.Ready); err != nil {
		return nil, err
	}
	const key = "sk-ant-api03-offline-mock-key"
	cfg, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true, "theme": "dark",
		"customApiKeyResponses": map[string]any{"approved": []string{key[len(key)-20:]}, "rejected": []string{}},
		"projects":              map[string]any{r.Project: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}}})
	if err := os.WriteFile(filepath.Join(r.Home, ".claude.json"), cfg, 0o644); err != nil {
		return nil, err
	}
	if r.mock, err = StartMock(sc, filepath.Join(out, "requests.jsonl")); err != nil {
		return nil, fmt.Errorf("start the mock API: %w", err)
	}
	if r.tmp, err = os.MkdirTemp("", "cc-"); err != nil {
		r.mock.Close()
		return nil, err
	}
	r.sock = filepath.Join(r.tmp, "tmux.sock")
	var envs []string
	for _, e := range env.claudeEnv(r.Home, r.tmp, r.mock.URL(), sc.Env) {
		if strings.HasPrefix(e, "TERM=") {
			e = "TERM=xterm-256color"
		}
		envs = append(envs, ShellQuote(e))
	}
	line := "cd " + ShellQuote(r.Project) + " && env -i " + strings.Join(envs, " ") + " " + ShellQuote(env.Claude) + " --permission-mode default"
	if err := r.tmux("new-session", "-d", "-x", "150", "-y", "45", line); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (r *Interactive) tmux(args ...string) error {
	cmd := exec.Command("tmux", append([]string{"-S", r.sock}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("tmux %s: %v: %s", args[0], err, b)
	}
	return nil
}

// Screen is what the client shows now.
func (r *Interactive) Screen() string {
	b, _ := exec.Command("tmux", "-S", r.sock, "capture-pane", "-p").Output()
	return string(b)
}

// Type types text, then Enter.
func (r *Interactive) Type(text string) error {
	if err := r.tmux("send-keys", "-l", text); err != nil {
		return err
	}
	return r.tmux("send-keys", "Enter")
}

// Keys sends keys as tmux send-keys takes them ("1", "Escape", "-l" TEXT).
func (r *Interactive) Keys(keys ...string) error {
	return r.tmux(append([]string{"send-keys"}, keys...)...)
}

// Wait polls cond until it holds or budget passes.
func Wait(ctx context.Context, budget time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(budget)
	for !cond() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%s: not within %s", what, budget)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

// Recorded counts the hook results of event so far.
func (r *Interactive) Recorded(event string) int {
	data, _ := os.ReadFile(filepath.Join(r.OutDir, "hook_results.jsonl"))
	return strings.Count(string(data), `"event":"`+event+`"`)
}

// Close ends the client, the tmux server and the mock.
func (r *Interactive) Close() {
	_ = exec.Command("tmux", "-S", r.sock, "kill-server").Run()
	if r.mock != nil {
		r.mock.Close()
	}
	if r.tmp != "" {
		os.RemoveAll(r.tmp)
	}
}
