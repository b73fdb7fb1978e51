package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestStatusPaths(t *testing.T) {
	lines := []string{
		" M main.go",
		"?? docs/new file.md",
		"R  old.go -> new.go",
		`?? "caf\303\251.txt"`,
		`?? "tab\there"`,
		"",
		"M",
	}
	want := []string{"main.go", "docs/new file.md", "new.go", "café.txt", "tab\there"}
	if got := StatusPaths(lines); !slices.Equal(got, want) {
		t.Errorf("StatusPaths = %q, want %q", got, want)
	}
}

// TestStatusPathsRealGit reads what the installed git prints.
func TestStatusPathsRealGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	for _, name := range []string{"plain.txt", "with space.txt", "café.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command("git", "-C", dir, "status", "--porcelain").Output()
	if err != nil {
		t.Fatal(err)
	}
	got := StatusPaths(strings.Split(strings.TrimSpace(string(out)), "\n"))
	slices.Sort(got)
	want := []string{"café.txt", "plain.txt", "with space.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("StatusPaths(%q) = %q, want %q", out, got, want)
	}
}
