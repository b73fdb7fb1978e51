// Package harness runs the real Claude Code CLI offline, against a scripted
// mock of the Anthropic Messages API (Mock), in a fresh git project whose
// settings register a capture wrapper (hookwrap) for every hook event. The
// wrapper records each payload Claude Code sends and passes it to the hook
// command under test (spcstr), so a test can compare what spcstr recorded
// with what Claude Code actually sent. Nothing leaves the machine: the CLI
// talks to the mock on 127.0.0.1, with telemetry, updates and other
// traffic switched off.
//
// The CLI is installed at the version pinned in e2e/package.json by
// scripts/install-claude (npm ci into a cache folder); Require finds it and
// skips the test, saying how to install it, when it is missing.
//
// A run's output folder holds: captured.jsonl (one record per hook
// invocation: event, cwd, CLAUDE_PROJECT_DIR, a few CLAUDE_* variables and
// the payload), hook_results.jsonl (the hook command's exit code, stdout and
// stderr per invocation), requests.jsonl (every API request and how the mock
// routed it), claude.stdout, claude.stderr, claude.rc (and claude.then.* for
// a scenario's second run, Scenario.Then), project/ (the session's
// project) and home/ (its HOME, with the transcripts under .claude/projects).
package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Events are the hook events Claude Code 2.1.330 accepts in settings.json;
// the harness registers the wrapper for all of them.
var Events = []string{
	"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
	"UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop", "StopFailure",
	"SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "PreModelSwitch", "PostModelSwitch",
	"PermissionRequest", "PermissionDenied", "Setup", "TeammateIdle", "TaskCreated", "TaskCompleted",
	"Elicitation", "ElicitationResult", "ConfigChange", "WorktreeCreate", "WorktreeRemove",
	"InstructionsLoaded", "CwdChanged", "FileChanged", "DirectoryAdded", "MessageDisplay",
}

// toolEvents get matcher "*".
var toolEvents = map[string]bool{"PreToolUse": true, "PostToolUse": true, "PostToolUseFailure": true,
	"PermissionRequest": true, "PermissionDenied": true}

// Options is one run.
type Options struct {
	// Scenario is the scenario file.
	Scenario string
	// HookCommand is run (bash -c, in the session's cwd) for every hook
	// after the capture; "" runs the scenario's helper, if any, or only
	// captures.
	HookCommand string
	// OutDir receives everything the run produced; it must be empty or
	// missing.
	OutDir string
	// Timeout overrides the scenario's timeout.
	Timeout time.Duration
	// Ready, when set, runs once the project exists and before Claude
	// Code starts (a test starts a dashboard on the project there).
	Ready func(project string) error
}

// Result is what a run produced.
type Result struct {
	OutDir, Project, Home string
	// ExitCode is Claude Code's exit code (-1 when it was killed).
	ExitCode int
	Elapsed  time.Duration
	// SessionID is the first run's session (from its stdout), set when the
	// scenario has a Then run; ThenSessionID is the second run's (a fork's
	// is new), ThenExitCode and ThenElapsed its exit code and time.
	SessionID, ThenSessionID string
	// MoreSessionIDs are the sessions of the runs after the second (a
	// Then's own Then: claude.then3.*, claude.then4.*, …).
	MoreSessionIDs []string
	ThenExitCode   int
	ThenElapsed    time.Duration
}

// Run runs one scenario with the CLI and wrapper of env.
func (env *Env) Run(ctx context.Context, o Options) (*Result, error) {
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
	if entries, _ := os.ReadDir(out); len(entries) > 0 {
		return nil, fmt.Errorf("output folder %s is not empty", out)
	}
	r := &Result{OutDir: out, Project: filepath.Join(out, "project"), Home: filepath.Join(out, "home")}
	sc, err := LoadScenario(o.Scenario, r.Project, out)
	if err != nil {
		return nil, err
	}
	hook := o.HookCommand
	if hook == "" && sc.Helper != "" {
		hook = ShellQuote(env.Hookwrap) + " helper " + ShellQuote(sc.Helper)
	}
	if err := env.prepare(sc, r, hook, o.Ready); err != nil {
		return nil, err
	}

	mock, err := StartMock(sc, filepath.Join(out, "requests.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("start the mock API: %w", err)
	}
	defer mock.Close()
	// Claude Code keeps per-session scratch (sockets among it) under
	// TMPDIR: a private, short folder, removed afterwards.
	tmp, err := os.MkdirTemp("", "cc-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	timeout := o.Timeout
	if timeout == 0 {
		timeout = time.Duration(max(sc.Timeout, 120)) * time.Second
	}
	prompt := sc.Prompt
	if prompt == "" {
		prompt = "Run the scripted scenario."
	}
	env2 := env.claudeEnv(r.Home, tmp, mock.URL(), sc.Env)
	r.ExitCode, r.Elapsed, err = env.runClaude(ctx, sc, r.Project, out, "claude", env2, timeout, append([]string{"-p", prompt}, sc.Args...))
	if err != nil || sc.Then == nil {
		return r, err
	}
	if r.SessionID, err = resultSessionID(filepath.Join(out, "claude.stdout")); err != nil {
		return r, err
	}
	// The first run's SessionEnd hook may still be running as the CLI
	// exits: the second starts once its result is recorded.
	if err := waitSessionEnds(ctx, filepath.Join(out, "hook_results.jsonl"), 1, timeout); err != nil {
		return r, err
	}
	prev, name := r.SessionID, "claude.then"
	for n, c := 2, sc.Then; c != nil; n, c = n+1, c.Then {
		args := []string{"-p", c.Prompt, "--resume", prev}
		if c.Fork {
			args = append(args, "--fork-session")
		}
		args = append(args, sc.Args...)
		code, elapsed, err := env.runClaude(ctx, sc, r.Project, out, name, env2, timeout, args)
		if err != nil {
			return r, err
		}
		id, err := resultSessionID(filepath.Join(out, name+".stdout"))
		if err != nil {
			return r, err
		}
		if n == 2 {
			r.ThenExitCode, r.ThenElapsed, r.ThenSessionID = code, elapsed, id
		} else {
			r.MoreSessionIDs = append(r.MoreSessionIDs, id)
		}
		// SessionEnd hooks run as the CLI exits: this run is over once
		// every session's so far has been recorded.
		if err := waitSessionEnds(ctx, filepath.Join(out, "hook_results.jsonl"), n, timeout); err != nil {
			return r, err
		}
		prev, name = id, fmt.Sprintf("claude.then%d", n+1)
	}
	return r, nil
}

// runClaude runs the CLI once in project with args (the prompt and
// session flags) plus the permission and output flags, writing
// <name>.stdout, <name>.stderr and <name>.rc into out.
func (env *Env) runClaude(ctx context.Context, sc *Scenario, project, out, name string, cenv []string, timeout time.Duration, args []string) (int, time.Duration, error) {
	if sc.PermissionMode == "" || sc.PermissionMode == "bypassPermissions" {
		args = append(args, "--dangerously-skip-permissions")
	} else {
		args = append(args, "--permission-mode", sc.PermissionMode)
	}
	args = append(args, "--output-format", "stream-json", "--verbose")

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, env.Claude, args...)
	cmd.Dir = project
	cmd.Env = cenv
	cmd.Stdin = nil
	stdout, err := os.Create(filepath.Join(out, name+".stdout"))
	if err != nil {
		return 0, 0, err
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(out, name+".stderr"))
	if err != nil {
		return 0, 0, err
	}
	defer stderr.Close()
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// Its own process group, so that a timeout ends its tools and hooks too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	t0 := time.Now()
	err = cmd.Run()
	elapsed := time.Since(t0)
	code := cmd.ProcessState.ExitCode()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return code, elapsed, fmt.Errorf("run %s: %w", env.Claude, err)
	}
	if runCtx.Err() != nil && ctx.Err() == nil {
		code = 124
	}
	if err := os.WriteFile(filepath.Join(out, name+".rc"), []byte(strconv.Itoa(code)+"\n"), 0o644); err != nil {
		return code, elapsed, err
	}
	return code, elapsed, nil
}

// waitSessionEnds waits until results (hook_results.jsonl) records n
// SessionEnd hooks, polling, for at most budget.
func waitSessionEnds(ctx context.Context, results string, n int, budget time.Duration) error {
	deadline := time.Now().Add(budget)
	for {
		data, err := os.ReadFile(results)
		if err != nil {
			return err
		}
		if strings.Count(string(data), `"event":"SessionEnd"`) >= n {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%s: fewer than %d SessionEnd hooks finished within %s", results, n, budget)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// resultSessionID is the session_id of the last stream-json line of a
// run's stdout that carries one (its result line).
func resultSessionID(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	id := ""
	for _, line := range strings.Split(string(data), "\n") {
		var v struct {
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal([]byte(line), &v) == nil && v.SessionID != "" {
			id = v.SessionID
		}
	}
	if id == "" {
		return "", fmt.Errorf("%s names no session_id", path)
	}
	return id, nil
}

// claudeEnv is the CLI's whole environment: nothing of the caller's but
// PATH and the locale, HOME in the run, the mock as the API.
func (env *Env) claudeEnv(home, tmp, url string, extra map[string]string) []string {
	name := os.Getenv("USER")
	if name == "" {
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
	}
	lang := os.Getenv("LANG")
	if lang == "" {
		lang = "C.UTF-8"
	}
	e := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "USER=" + name, "LOGNAME=" + name,
		"SHELL=/bin/bash", "TERM=dumb", "LANG=" + lang, "TMPDIR=" + tmp,
		"ANTHROPIC_BASE_URL=" + url,
		"ANTHROPIC_API_KEY=sk-ant-api03-offline-mock-key",
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_NON_ESSENTIAL_MODEL_CALLS=1",
	}
	// --dangerously-skip-permissions is refused for root unless IS_SANDBOX=1.
	if os.Geteuid() == 0 {
		e = append(e, "IS_SANDBOX=1")
	}
	for k, v := range extra {
		e = append(e, k+"="+v)
	}
	return e
}

// prepare lays out a run's folder before the CLI starts: the hook command
// the wrapper runs, the empty capture files, the scenario's project, the
// CLI's home, then the caller's Ready step.
func (env *Env) prepare(sc *Scenario, r *Result, hook string, ready func(project string) error) error {
	if err := os.WriteFile(filepath.Join(r.OutDir, "hook_command.txt"), []byte(hook+"\n"), 0o644); err != nil {
		return err
	}
	for _, f := range []string{"captured.jsonl", "hook_results.jsonl"} {
		if err := os.WriteFile(filepath.Join(r.OutDir, f), nil, 0o644); err != nil {
			return err
		}
	}
	if err := env.makeProject(sc, r.Project, r.OutDir); err != nil {
		return err
	}
	if err := os.MkdirAll(r.Home, 0o755); err != nil {
		return err
	}
	if ready != nil {
		if err := ready(r.Project); err != nil {
			return fmt.Errorf("ready: %w", err)
		}
	}
	return nil
}

// makeProject writes the scenario's files and the settings that register
// the wrapper for every event, and commits them in a new git repository
// on branch main.
func (env *Env) makeProject(sc *Scenario, project, out string) error {
	for rel, content := range sc.ProjectFiles {
		p := filepath.Join(project, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	hooks := map[string]any{}
	for _, ev := range Events {
		command := ShellQuote(env.Hookwrap) + " --event " + ev + " --out " + ShellQuote(out)
		entry := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "timeout": 60}}}
		if toolEvents[ev] {
			entry["matcher"] = "*"
		}
		hooks[ev] = []any{entry}
	}
	settings := map[string]any{}
	for k, v := range sc.Settings {
		settings[k] = v
	}
	// The scenario's own hooks (settings.hooks) run beside the wrapper,
	// after it, as Claude Code's other hooks of the event.
	if own, ok := sc.Settings["hooks"].(map[string]any); ok {
		for ev, entries := range own {
			list, _ := entries.([]any)
			prev, _ := hooks[ev].([]any)
			hooks[ev] = append(prev, list...)
		}
	}
	settings["hooks"] = hooks
	data, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(project, ".claude", "settings.json"), data, 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.name", "Harness User"},
		{"config", "user.email", "harness@example.invalid"},
		{"config", "commit.gpgsign", "false"},
		{"add", "-A"},
		{"commit", "-q", "-m", "initial commit", "--allow-empty"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = project
		// git must not read the machine's or the user's configuration.
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	return nil
}

// ShellQuote quotes s for bash.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
