package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidSessionID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"61d1bf36-be5c-4105-a3b5-9191266d28a0", true},
		{"a", true},
		{"A9", true},
		{"audit-test-001", true},
		{"s.1_x-y", true},
		{"a..b", true}, // dots inside a name are not traversal
		{strings.Repeat("a", 128), true},

		{"", false},
		{".", false},
		{"..", false},
		{"...", false},
		{".hidden", false},
		{"-rf", false},
		{"_x", false},
		{"../etc", false},
		{"../../../../etc/passwd", false},
		{"a/../../b", false},
		{"a/b", false},
		{`a\b`, false},
		{`..\..\windows`, false},
		{"/etc/passwd", false},
		{"/tmp", false},
		{`C:\Windows`, false},
		{"C:", false},
		{"a\x00b", false},
		{"a\x00", false},
		{"\x00", false},
		{"abc\n", false},
		{"abc\r", false},
		{" abc", false},
		{"abc ", false},
		{"a b", false},
		{"a*b", false},
		{"a:b", false},
		{"ä", false},
		{"a\u200bb", false},
		{strings.Repeat("a", 129), false},
		{strings.Repeat("a", 300), false},
		{strings.Repeat("../", 100), false},
	}
	for _, tt := range tests {
		if got := ValidSessionID(tt.id); got != tt.want {
			t.Errorf("ValidSessionID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

// Every path a Layout hands out for a session stays inside .spcstr/, and an
// invalid id yields no path at all.
func TestLayoutPaths(t *testing.T) {
	l := Layout{Root: "/proj"}
	if l.Dir() != "/proj/.spcstr" || l.SessionsDir() != "/proj/.spcstr/sessions" ||
		l.LogsDir() != "/proj/.spcstr/logs" || l.ConfigPath() != "/proj/.spcstr/config.yaml" ||
		l.LogPath("pre_tool_use") != "/proj/.spcstr/logs/pre_tool_use.json" {
		t.Fatalf("unexpected layout paths")
	}
	sp, err := l.StatePath("abc")
	if err != nil || sp != "/proj/.spcstr/sessions/abc/state.json" {
		t.Fatalf("StatePath = %q, %v", sp, err)
	}
	fp, err := l.FeedbackPath("abc")
	if err != nil || fp != "/proj/.spcstr/sessions/abc/feedback-loop.json" {
		t.Fatalf("FeedbackPath = %q, %v", fp, err)
	}
	for _, bad := range []string{"..", "../x", "/abs", "a\x00", strings.Repeat("x", 300), ""} {
		for name, fn := range map[string]func(string) (string, error){
			"SessionDir": l.SessionDir, "StatePath": l.StatePath, "FeedbackPath": l.FeedbackPath,
		} {
			p, err := fn(bad)
			if err == nil || p != "" || !errors.Is(err, ErrInvalidSessionID) {
				t.Errorf("%s(%q) = %q, %v", name, bad, p, err)
			}
			if err != nil && len(err.Error()) > 200 {
				t.Errorf("%s: error message not bounded: %d bytes", name, len(err.Error()))
			}
		}
	}
}

func mkdirs(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFindRoot(t *testing.T) {
	base := t.TempDir()
	// proj: has .spcstr at its top, work happens in proj/src/pkg.
	proj := filepath.Join(base, "proj")
	mkdirs(t, filepath.Join(proj, DirName), filepath.Join(proj, "src", "pkg"))
	// repo: a git work tree without .spcstr.
	repo := filepath.Join(base, "repo")
	mkdirs(t, filepath.Join(repo, ".git"), filepath.Join(repo, "a", "b"))
	if err := os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// repo2: a git work tree with .spcstr in a sub-project and at the top.
	repo2 := filepath.Join(base, "repo2")
	mkdirs(t, filepath.Join(repo2, ".git"), filepath.Join(repo2, DirName), filepath.Join(repo2, "sub", DirName), filepath.Join(repo2, "sub", "x"))
	// plain: neither.
	plain := filepath.Join(base, "plain", "deep")
	mkdirs(t, plain)
	// notdir: .spcstr is a file, not a folder.
	notdir := filepath.Join(base, "notdir")
	mkdirs(t, filepath.Join(notdir, "in"))
	if err := os.WriteFile(filepath.Join(notdir, DirName), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, projectDir, cwd, want string
	}{
		{"CLAUDE_PROJECT_DIR wins", proj, filepath.Join(repo, "a"), proj},
		{"CLAUDE_PROJECT_DIR is cleaned", proj + "/src/..//", "", proj},
		{"cwd at the root", "", proj, proj},
		{"cwd in a subfolder (user ran cd)", "", filepath.Join(proj, "src", "pkg"), proj},
		{"cwd not cleaned", "", proj + "/src/./pkg/", proj},
		{"git top level without .spcstr", "", filepath.Join(repo, "a", "b"), repo},
		{"nearest .spcstr beats git top", "", filepath.Join(repo2, "sub", "x"), filepath.Join(repo2, "sub")},
		{"top .spcstr in a repo", "", repo2, repo2},
		{"neither: cwd itself", "", plain, plain},
		{".spcstr file is not a project", "", filepath.Join(notdir, "in"), filepath.Join(notdir, "in")},
	}
	for _, tt := range tests {
		if got := FindRoot(tt.projectDir, tt.cwd); got != tt.want {
			t.Errorf("%s: FindRoot(%q, %q) = %q, want %q", tt.name, tt.projectDir, tt.cwd, got, tt.want)
		}
	}
}

func TestFindRootEmptyCwdUsesProcessDir(t *testing.T) {
	proj := t.TempDir()
	mkdirs(t, filepath.Join(proj, DirName), filepath.Join(proj, "sub"))
	t.Chdir(filepath.Join(proj, "sub"))
	got := FindRoot("", "")
	// The temp dir may be reached through a symlink; compare resolved.
	want, _ := filepath.EvalSymlinks(proj)
	gotR, _ := filepath.EvalSymlinks(got)
	if gotR != want {
		t.Errorf("FindRoot with empty cwd = %q, want %q", got, proj)
	}
}

func TestSessionIDs(t *testing.T) {
	l := Layout{Root: t.TempDir()}
	ids, err := l.SessionIDs()
	if err != nil || ids != nil {
		t.Fatalf("no sessions folder: %v, %v", ids, err)
	}
	mkdirs(t, filepath.Join(l.SessionsDir(), "b-2"), filepath.Join(l.SessionsDir(), "a-1"),
		filepath.Join(l.SessionsDir(), ".hidden"), filepath.Join(l.SessionsDir(), "-bad"))
	if err := os.WriteFile(filepath.Join(l.SessionsDir(), "c-file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ids, err = l.SessionIDs()
	if err != nil || strings.Join(ids, ",") != "a-1,b-2" {
		t.Errorf("SessionIDs = %v, %v", ids, err)
	}
}
