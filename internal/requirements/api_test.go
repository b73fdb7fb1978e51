package requirements_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/state"
)

func TestProjectSatisfyClearStatuses(t *testing.T) {
	p := newProject(t, planConfig)
	t.Setenv("HOME", p.home) // the package-level functions read the process environment
	ctx := context.Background()
	r := p.reqs()

	var unknown *requirements.UnknownError
	if _, _, err := r.Satisfy(ctx, sid, []string{"comit_plan"}, false); !errors.As(err, &unknown) || unknown.Suggestion != "commit_plan" {
		t.Fatalf("unknown name: %v", err)
	}
	if _, err := os.Stat(requirements.Locate(p.root).Path); err == nil {
		t.Error("a refused satisfy wrote the state file")
	}
	if _, _, err := r.Satisfy(ctx, "", []string{"commit_plan"}, false); !errors.Is(err, requirements.ErrNoSession) {
		t.Fatalf("session scope without a session: %v", err)
	}
	st, _, err := r.Satisfy(ctx, sid, []string{"commit_plan"}, true)
	if err != nil || len(st) != 1 || !st[0].Satisfied || !st[0].BranchOverride || st[0].SatisfiedBy != "cli" {
		t.Fatalf("satisfy --branch: %+v, %v", st, err)
	}
	all, err := r.Statuses("0b1c2d3e-0000-4000-8000-000000000000")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range all {
		names = append(names, s.Name)
		if s.Name == "commit_plan" && (!s.Satisfied || !s.BranchOverride) {
			t.Errorf("other session does not see the branch override: %+v", s)
		}
		if s.Name == "commit_plan" && s.Message != "Plan first (session 0b1c2d3e, branch feature/auth)." {
			t.Errorf("message = %q", s.Message)
		}
	}
	if strings.Join(names, ",") != "commit_plan,design_ok,pre_commit_review,disabled_one" {
		t.Errorf("order = %v (enabled first, in configuration order)", names)
	}
	// Clearing the session only keeps the override, and says so.
	st, _, err = r.Clear(ctx, sid, []string{"commit_plan"}, false)
	if err != nil || !st[0].Satisfied || !st[0].BranchOverride {
		t.Fatalf("clear without --branch: %+v %v", st, err)
	}
	st, _, err = r.Clear(ctx, sid, []string{"commit_plan"}, true)
	if err != nil || st[0].Satisfied {
		t.Fatalf("clear --branch: %+v %v", st, err)
	}
	// The package-level functions for the dashboard write the same file.
	if err := requirements.Satisfy(ctx, p.root, sid, "pre_commit_review", false); err != nil {
		t.Fatal(err)
	}
	if !p.state().IsSatisfied("pre_commit_review", "single_use", key, 1e12) {
		t.Error("dashboard Satisfy not seen")
	}
	if err := requirements.Clear(ctx, p.root, sid, "pre_commit_review", false); err != nil {
		t.Fatal(err)
	}
	if p.state().IsSatisfied("pre_commit_review", "single_use", key, 1e12) {
		t.Error("dashboard Clear not seen")
	}
	if err := requirements.Satisfy(ctx, p.root, sid, "nope", false); err == nil {
		t.Error("dashboard Satisfy of an unknown name succeeded")
	}
	// What the dashboard reads is what the next hook sees.
	if err := requirements.Satisfy(ctx, p.root, sid, "commit_plan", false); err != nil {
		t.Fatal(err)
	}
	if out := p.pre("Edit", map[string]any{"file_path": "/x"}); out != "" {
		t.Errorf("hook after dashboard satisfy answered %s", out)
	}
	sts, err := requirements.Statuses(p.root, sid)
	if err != nil || !sts[0].Triggered || !sts[0].Satisfied {
		t.Errorf("Statuses after the hook: %+v %v", sts, err)
	}
}

func TestClearAllIncludesLeftovers(t *testing.T) {
	p := newProject(t, planConfig)
	ctx := context.Background()
	// A requirement that is no longer configured still has state.
	p.write(".git/requirements/feature-auth.json", `{"version":"1.0","requirements":{"retired":{"scope":"branch","satisfied":true}}}`)
	r := p.reqs()
	if _, _, err := r.Satisfy(ctx, sid, []string{"commit_plan"}, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Clear(ctx, sid, []string{"retired"}, false); err != nil {
		t.Fatalf("clear of a state-only name: %v", err)
	}
	if _, _, err := r.Satisfy(ctx, sid, []string{"retired"}, false); err == nil {
		t.Error("satisfy of an unconfigured name succeeded")
	}
	p.write(".git/requirements/feature-auth.json", `{"version":"1.0","requirements":{"retired":{"scope":"branch","satisfied":true},
		"commit_plan":{"scope":"session","sessions":{"cad0ac4d":{"satisfied":true}}}}}`)
	st, _, err := r.ClearAll(ctx, sid, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 5 {
		t.Errorf("ClearAll touched %d requirements: %+v", len(st), st)
	}
	f := p.state()
	if f.IsSatisfied("retired", "branch", key, 1e12) || f.IsSatisfied("commit_plan", "session", key, 1e12) {
		t.Error("ClearAll left something satisfied")
	}
}

func TestResolveSession(t *testing.T) {
	root := t.TempDir()
	regPath := filepath.Join(t.TempDir(), "sessions.json")
	env := map[string]string{"SPCSTR_REGISTRY": regPath}
	getenv := func(k string) string { return env[k] }
	layout := state.Layout{Root: root}
	ctx := context.Background()
	mk := func(id string, at time.Time, ended bool, ppid int) {
		if _, err := layout.Update(ctx, id, at, state.UpdateOptions{}, func(s *state.Session, _ bool) error {
			s.UpdatedAt = at
			if ended {
				s.Status = state.StatusEnded
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := registry.Register(ctx, regPath, id, registry.Entry{PPID: ppid, ProjectDir: root}, func(int) bool { return true }); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mk("aaaaaaaa-0000-4000-8000-000000000000", t0, false, 100)
	mk("bbbbbbbb-0000-4000-8000-000000000000", t0.Add(time.Hour), false, 200)  // newest, but its process is gone
	mk("cccccccc-0000-4000-8000-000000000000", t0.Add(2*time.Hour), true, 100) // ended
	mk("dddddddd-0000-4000-8000-000000000000", t0.Add(30*time.Minute), false, 100)
	alive := func(pid int) bool { return pid == 100 }

	id, how, err := requirements.ResolveSession(root, "", getenv, alive)
	if err != nil || id != "dddddddd-0000-4000-8000-000000000000" ||
		how != "newest of 2 live sessions; also live: aaaaaaaa; pick another with --session ID or CLAUDE_SESSION_ID" {
		t.Errorf("newest live = %q %q %v", id, how, err)
	}
	if id, how, _ := requirements.ResolveSession(root, "", getenv, func(pid int) bool { return pid == 200 }); id != "bbbbbbbb-0000-4000-8000-000000000000" || how != "the only live session" {
		t.Errorf("only live = %q %q", id, how)
	}
	// The framework's CLI reads CLAUDE_SESSION_ID; Claude Code's own
	// variable wins when both are set.
	env["CLAUDE_SESSION_ID"] = "ffffffff-0000-4000-8000-000000000000"
	if id, how, _ := requirements.ResolveSession(root, "", getenv, alive); id != env["CLAUDE_SESSION_ID"] || how != "$CLAUDE_SESSION_ID" {
		t.Errorf("CLAUDE_SESSION_ID = %q %q", id, how)
	}
	env["CLAUDE_CODE_SESSION_ID"] = "eeeeeeee-0000-4000-8000-000000000000"
	if id, how, _ := requirements.ResolveSession(root, "", getenv, alive); id != env["CLAUDE_CODE_SESSION_ID"] || how != "$CLAUDE_CODE_SESSION_ID" {
		t.Errorf("env = %q %q", id, how)
	}
	delete(env, "CLAUDE_SESSION_ID")
	if id, how, _ := requirements.ResolveSession(root, "abc", getenv, alive); id != "abc" || how != "--session" {
		t.Errorf("flag = %q %q", id, how)
	}
	delete(env, "CLAUDE_CODE_SESSION_ID")
	if _, _, err := requirements.ResolveSession(root, "", getenv, func(int) bool { return false }); !errors.Is(err, requirements.ErrNoSession) {
		t.Errorf("no live session: %v", err)
	}
}

// State lives in the git common dir, so every worktree of a repository
// shares it (docs/layout.md), checked with a real `git worktree`.
func TestWorktreesShareState(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required for this test")
	}
	base := t.TempDir()
	t.Setenv("HOME", base)
	main := filepath.Join(base, "main")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(filepath.Join(main, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "requirements:\n  arch:\n    enabled: true\n    scope: branch\n  plan:\n    enabled: true\n"
	if err := os.WriteFile(filepath.Join(main, ".claude/requirements.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	git(main, "init", "-q", "-b", "main")
	git(main, "add", ".")
	git(main, "commit", "-q", "-m", "init")
	wt := filepath.Join(base, "wt")
	git(main, "worktree", "add", "-q", "-b", "feature/auth", wt)

	loc := requirements.Locate(wt)
	wantDir := filepath.Join(main, ".git", "requirements")
	if loc.Dir != wantDir || loc.Branch != "feature/auth" || loc.Path != filepath.Join(wantDir, "feature-auth.json") {
		t.Fatalf("worktree location = %+v", loc)
	}
	ctx := context.Background()
	p, err := requirements.Open(wt, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Satisfy(ctx, sid, []string{"arch", "plan"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(wt, ".spcstr")); err == nil {
		t.Error("state written inside the worktree")
	}
	// The main checkout (another branch) has its own, empty state.
	if st, _ := requirements.Statuses(main, sid); st[0].Satisfied {
		t.Error("main branch sees feature/auth's state")
	}
	// Once the branch is checked out in the main worktree, its state is there.
	git(main, "worktree", "remove", wt)
	git(main, "checkout", "-q", "feature/auth")
	st, err := requirements.Statuses(main, sid)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if !s.Satisfied {
			t.Errorf("%s not satisfied after moving worktrees: %+v", s.Name, s)
		}
	}
	// A second worktree on another branch writes into the same folder.
	wt2 := filepath.Join(base, "wt2")
	git(main, "worktree", "add", "-q", "-b", "fix/x", wt2)
	if err := requirements.Satisfy(ctx, wt2, sid, "arch", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(wantDir, "fix-x.json")); err != nil {
		t.Errorf("second worktree's state: %v", err)
	}
}

func TestLocateOutsideGit(t *testing.T) {
	root := t.TempDir()
	loc := requirements.Locate(root)
	if loc.Branch != requirements.NoGitBranch || loc.Path != filepath.Join(root, ".spcstr", "requirements", "default.json") {
		t.Errorf("outside git: %+v", loc)
	}
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("0123456789abcdef0123456789abcdef01234567\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if loc := requirements.Locate(root); loc.Branch != "HEAD" || filepath.Base(loc.Path) != "HEAD.json" {
		t.Errorf("detached: %+v", loc)
	}
}
