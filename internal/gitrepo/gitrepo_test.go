package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// git runs the real git (tests only: the package itself never does).
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func resolved(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestFindRealRepoAndWorktree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required for this test: ", err)
	}
	base := resolved(t, t.TempDir())
	main := filepath.Join(base, "main")
	if err := os.MkdirAll(filepath.Join(main, "src", "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, main, "init", "-q", "-b", "trunk")
	git(t, main, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(base, "wt-feature")
	git(t, main, "worktree", "add", "-q", "-b", "feature/auth", wt)
	if err := os.MkdirAll(filepath.Join(wt, "deep", "er"), 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, dir           string
		top, gitDir, common string
		branch              string
	}{
		{"main top", main, main, filepath.Join(main, ".git"), filepath.Join(main, ".git"), "trunk"},
		{"main subfolder", filepath.Join(main, "src", "pkg"), main, filepath.Join(main, ".git"), filepath.Join(main, ".git"), "trunk"},
		{"worktree top", wt, wt, filepath.Join(main, ".git", "worktrees", "wt-feature"), filepath.Join(main, ".git"), "feature/auth"},
		{"worktree subfolder", filepath.Join(wt, "deep", "er"), wt, filepath.Join(main, ".git", "worktrees", "wt-feature"), filepath.Join(main, ".git"), "feature/auth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := Find(tt.dir)
			if !ok {
				t.Fatal("not found")
			}
			if r.Top != tt.top || r.GitDir != tt.gitDir || r.CommonDir != tt.common {
				t.Errorf("Find = %+v\nwant top=%s gitdir=%s common=%s", r, tt.top, tt.gitDir, tt.common)
			}
			if b := r.Branch(); b != tt.branch {
				t.Errorf("Branch = %q, want %q", b, tt.branch)
			}
		})
	}

	// Detached HEAD.
	git(t, wt, "checkout", "-q", "--detach")
	if r, _ := Find(wt); r.Branch() != "HEAD" {
		t.Errorf("detached: Branch = %q", r.Branch())
	}
}

func TestFindOutsideRepo(t *testing.T) {
	dir := t.TempDir()
	if r, ok := Find(dir); ok {
		// Only acceptable if the temp dir itself lives in a repository.
		if _, err := os.Stat(filepath.Join(r.Top, ".git")); err != nil {
			t.Errorf("Find(%s) = %+v without a .git", dir, r)
		}
	}
	// A .git file that is not a gitdir pointer is not a repository.
	bogus := filepath.Join(dir, "bogus")
	_ = os.MkdirAll(bogus, 0o755)
	_ = os.WriteFile(filepath.Join(bogus, ".git"), []byte("not a pointer\n"), 0o644)
	if r, ok := Find(bogus); ok && r.Top == bogus {
		t.Errorf("bogus .git file accepted: %+v", r)
	}
}

// Submodules and linked worktrees use a ".git" file with a relative gitdir.
func TestGitFileRelative(t *testing.T) {
	base := resolved(t, t.TempDir())
	gd := filepath.Join(base, "store", "modules", "sub")
	sub := filepath.Join(base, "work", "sub")
	for _, d := range []string{gd, sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(sub, ".git"), []byte("gitdir: ../../store/modules/sub\n"), 0o644)
	_ = os.WriteFile(filepath.Join(gd, "HEAD"), []byte("ref: refs/heads/release/v1.2\n"), 0o644)
	if r, ok := Find(sub); ok && r.Top == sub {
		t.Errorf("a gitdir without objects and refs accepted: %+v", r)
	}
	for _, d := range []string{"objects", "refs"} {
		if err := os.Mkdir(filepath.Join(gd, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r, ok := Find(sub)
	if !ok || r.Top != sub || r.GitDir != gd || r.CommonDir != gd {
		t.Fatalf("Find = %+v, %v", r, ok)
	}
	if r.Branch() != "release/v1.2" {
		t.Errorf("Branch = %q", r.Branch())
	}
	// Unreadable HEAD.
	_ = os.Remove(filepath.Join(gd, "HEAD"))
	if r.Branch() != "" {
		t.Errorf("Branch without HEAD = %q", r.Branch())
	}
}

func TestBranchFileName(t *testing.T) {
	tests := map[string]string{
		"main":             "main",
		"feature/auth":     "feature-auth",
		"a/b/c":            "a-b-c",
		"fix_1-2":          "fix_1-2",
		"v1.2":             "v1_2",
		"we ird":           "we_ird",
		"../../etc":        "__-__-etc",
		"ünï":              "_n_",
		"":                 "_",
		"HEAD":             "HEAD",
		"a\x00b":           "a_b",
		`back\slash`:       "back_slash",
		"dependabot/npm/x": "dependabot-npm-x",
	}
	for in, want := range tests {
		if got := BranchFileName(in); got != want {
			t.Errorf("BranchFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

// CachedBranch reads HEAD once, answers from the cache while HEAD is
// unchanged, and sees a checkout of another branch.
func TestCachedBranch(t *testing.T) {
	top := t.TempDir()
	head := filepath.Join(top, ".git", "HEAD")
	if err := os.MkdirAll(filepath.Dir(head), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(s string, mod time.Time) {
		if err := os.WriteFile(head, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(head, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	t1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write("ref: refs/heads/main\n", t1)
	var c HeadCache
	if b := CachedBranch(top, &c); b != "main" || c.Branch != "main" || c.Head != head {
		t.Fatalf("first read: %q %+v", b, c)
	}
	// Same size and time: the cache answers (a stale stamp proves it).
	c.Branch = "cached"
	if b := CachedBranch(top, &c); b != "cached" {
		t.Errorf("unchanged HEAD was read again: %q", b)
	}
	write("ref: refs/heads/feature/x\n", t1.Add(time.Second))
	if b := CachedBranch(top, &c); b != "feature/x" {
		t.Errorf("after checkout: %q", b)
	}
	if b := CachedBranch(t.TempDir(), &c); b != "" || c != (HeadCache{}) {
		t.Errorf("outside a repository: %q %+v", b, c)
	}
}

// Issue 23 row 4: a committed ".git" file naming a committed folder is not
// a repository unless that folder is a real git dir, or a worktree entry
// of a real repository that points back at the .git file.
func TestFakeGitDirRefused(t *testing.T) {
	base := resolved(t, t.TempDir())
	tree := filepath.Join(base, "tree")
	fake := filepath.Join(tree, ".fakegit")
	for _, d := range []string{fake, filepath.Join(base, "elsewhere")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(tree, ".git"), []byte("gitdir: .fakegit\n"), 0o644)
	_ = os.WriteFile(filepath.Join(fake, "HEAD"), []byte("ref: refs/heads/settings\n"), 0o644)
	_ = os.Symlink(filepath.Join(base, "elsewhere"), filepath.Join(fake, "requirements"))
	if r, ok := Find(tree); ok && r.Top == tree {
		t.Errorf("fake git dir accepted: %+v", r)
	}
	// A worktree entry that does not point back at this .git file.
	real := filepath.Join(base, "real")
	git(t, base, "init", "-q", real)
	git(t, real, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(base, "wt")
	git(t, real, "worktree", "add", "-q", wt)
	other := filepath.Join(base, "other")
	_ = os.MkdirAll(other, 0o755)
	entry := filepath.Join(real, ".git", "worktrees", "wt")
	_ = os.WriteFile(filepath.Join(other, ".git"), []byte("gitdir: "+entry+"\n"), 0o644)
	if r, ok := Find(other); ok && r.Top == other {
		t.Errorf("borrowed worktree entry accepted: %+v", r)
	}
	if r, ok := Find(wt); !ok || r.Top != wt {
		t.Errorf("real worktree refused: %+v %v", r, ok)
	}
}
