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

// Interactive is the full-screen Claude Code client running in a private
// tmux server against the mock, in a project prepared as Run prepares it
// (the recipe of the harness's "Interactive mode"): for what exists only
// there, such as the permission dialog.
type Interactive struct {
	Project, Home, OutDir string
	tmux, sock, target    string
	mock                  *Mock
	tmp                   string
}

// StartInteractive prepares o's project and starts `claude --permission-mode
// MODE` in a detached tmux session of its own (150×45). Close ends both.
func (env *Env) StartInteractive(o Options, tmux string) (*Interactive, error) {
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
	s := &Interactive{OutDir: out, Project: filepath.Join(out, "project"), Home: filepath.Join(out, "home"), tmux: tmux,
		sock: fmt.Sprintf("spcstr-cc-%d-%d", os.Getpid(), time.Now().UnixNano()), target: "cc"}
	sc, err := LoadScenario(o.Scenario, s.Project, out)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(out, "hook_command.txt"), []byte(o.HookCommand+"\n"), 0o644); err != nil {
		return nil, err
	}
	for _, f := range []string{"captured.jsonl", "hook_results.jsonl"} {
		if err := os.WriteFile(filepath.Join(out, f), nil, 0o644); err != nil {
			return nil, err
		}
	}
	if err := env.makeProject(sc, s.Project, out); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.Home, 0o755); err != nil {
		return nil, err
	}
	if o.Ready != nil {
		if err := o.Ready(s.Project); err != nil {
			return nil, fmt.Errorf("ready: %w", err)
		}
	}
	if s.mock, err = StartMock(sc, filepath.Join(out, "requests.jsonl")); err != nil {
		return nil, fmt.Errorf("start the mock API: %w", err)
	}
	if s.tmp, err = os.MkdirTemp("", "cc-"); err != nil {
		s.Close()
		return nil, err
	}
	cenv := env.claudeEnv(s.Home, s.tmp, s.mock.URL(), sc.Env)
	key := ""
	for i, kv := range cenv {
		if kv == "TERM=dumb" {
			cenv[i] = "TERM=xterm-256color"
		}
		if v, ok := strings.CutPrefix(kv, "ANTHROPIC_API_KEY="); ok {
			key = v[max(len(v)-20, 0):]
		}
	}
	// No first-run screens: onboarding done, the key approved, the
	// project trusted (else its settings' hooks are held back).
	cfg := map[string]any{"hasCompletedOnboarding": true, "theme": "dark",
		"customApiKeyResponses": map[string]any{"approved": []string{key}, "rejected": []string{}},
		"projects":              map[string]any{s.Project: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}}}
	data, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(s.Home, ".claude.json"), data, 0o600); err != nil {
		s.Close()
		return nil, err
	}
	mode := sc.PermissionMode
	if mode == "" {
		mode = "default"
	}
	quoted := make([]string, len(cenv))
	for i, kv := range cenv {
		quoted[i] = ShellQuote(kv)
	}
	shell := "cd " + ShellQuote(s.Project) + " && exec env -i " + strings.Join(quoted, " ") + " " + ShellQuote(env.Claude) +
		" --permission-mode " + ShellQuote(mode)
	if b, err := exec.Command(tmux, "-L", s.sock, "new-session", "-d", "-s", s.target, "-x", "150", "-y", "45", shell).CombinedOutput(); err != nil {
		s.Close()
		return nil, fmt.Errorf("tmux: %v: %s", err, b)
	}
	return s, nil
}

// Screen is what the client shows now.
func (s *Interactive) Screen() string {
	b, _ := exec.Command(s.tmux, "-L", s.sock, "capture-pane", "-p", "-t", s.target).Output()
	return string(b)
}

// Keys sends tmux send-keys arguments (e.g. "-l", "text"; or "Enter").
func (s *Interactive) Keys(args ...string) error {
	b, err := exec.Command(s.tmux, append([]string{"-L", s.sock, "send-keys", "-t", s.target}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("send-keys: %v: %s", err, b)
	}
	return nil
}

// WaitFor waits until the screen holds want, for at most budget.
func (s *Interactive) WaitFor(ctx context.Context, want string, budget time.Duration) (string, bool) {
	deadline := time.Now().Add(budget)
	for {
		scr := s.Screen()
		if strings.Contains(scr, want) {
			return scr, true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return scr, false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Close ends the client, its tmux server and the mock.
func (s *Interactive) Close() {
	_ = exec.Command(s.tmux, "-L", s.sock, "kill-server").Run()
	if s.mock != nil {
		_ = s.mock.Close()
	}
	if s.tmp != "" {
		_ = os.RemoveAll(s.tmp)
	}
}
