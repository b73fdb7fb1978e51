package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// revParse asks the real git what HEAD is (tests only).
func revParse(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// HeadCommit reads what git rev-parse HEAD says: an unborn branch, a loose
// ref, a packed ref, a detached head, a linked worktree's own HEAD.
func TestHeadCommitMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required for this test: ", err)
	}
	base := resolved(t, t.TempDir())
	main := filepath.Join(base, "main")
	if err := os.MkdirAll(main, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, main, "init", "-q", "-b", "trunk")
	repo, _ := Find(main)
	if c, ok := repo.HeadCommit(); !ok || c != "" {
		t.Fatalf("unborn branch: HeadCommit = %q, %v; want \"\", true", c, ok)
	}
	check := func(what string, r Repo, dir string) {
		t.Helper()
		c, ok := r.HeadCommit()
		if want := revParse(t, dir); !ok || c != want {
			t.Errorf("%s: HeadCommit = %q, %v; want %q", what, c, ok, want)
		}
	}
	git(t, main, "commit", "-q", "--allow-empty", "-m", "one")
	check("loose ref", repo, main)
	first := revParse(t, main)
	git(t, main, "commit", "-q", "--allow-empty", "-m", "two")
	check("after a commit", repo, main)
	if c, _ := repo.HeadCommit(); c == first {
		t.Error("a commit did not move HeadCommit")
	}
	git(t, main, "pack-refs", "--all")
	if _, err := os.Stat(filepath.Join(main, ".git", "refs", "heads", "trunk")); !os.IsNotExist(err) {
		t.Fatalf("pack-refs left the loose ref: %v", err)
	}
	check("packed ref", repo, main)
	wt := filepath.Join(base, "wt")
	git(t, main, "worktree", "add", "-q", "-b", "feature", wt)
	wrepo, _ := Find(wt)
	git(t, wt, "commit", "-q", "--allow-empty", "-m", "three")
	check("worktree", wrepo, wt)
	check("main beside a worktree", repo, main)
	git(t, main, "checkout", "-q", "--detach", first)
	check("detached", repo, main)
}

func TestHeadCommitUnknown(t *testing.T) {
	for name, head := range map[string]string{
		"reftable stub": "ref: refs/heads/.invalid\n",
		"garbage":       "not a commit\n",
		"short id":      "abc123\n",
		"outside refs":  "ref: ../../etc/passwd\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "HEAD"), []byte(head), 0o644); err != nil {
				t.Fatal(err)
			}
			if c, ok := (Repo{GitDir: dir, CommonDir: dir}).HeadCommit(); ok {
				t.Errorf("HeadCommit = %q, true; want not ok", c)
			}
		})
	}
}

// Run gives git's output lines, and an error naming the command and git's
// message when it fails.
func TestRun(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required for this test: ", err)
	}
	dir := resolved(t, t.TempDir())
	git(t, dir, "init", "-q", "-b", "trunk")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, err := Run(context.Background(), dir, "status", "--porcelain")
	if err != nil || len(lines) != 1 || lines[0] != "?? a.txt" {
		t.Fatalf("Run status = %q, %v", lines, err)
	}
	if _, err := Run(context.Background(), dir, "log"); err == nil || !strings.Contains(err.Error(), "git log") {
		t.Errorf("Run log in an empty repository: %v", err)
	}
}
