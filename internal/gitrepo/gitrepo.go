// Package gitrepo answers the few questions spcstr asks about a git
// repository (where its top level and common directory are, which branch is
// checked out, which commit HEAD points at) by reading .git files directly.
// Those never run git: these answers are needed on the hook's hot path,
// where starting a process would cost more than everything else the hook
// does. Run (run.go) is the one place spcstr starts git, for the
// strategies' checks at the few hooks that may pay for it.
package gitrepo

import (
	"bytes"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"os"
	"path/filepath"
	"strings"
)

// Repo describes the repository containing a directory.
type Repo struct {
	// Top is the work tree's top level.
	Top string
	// GitDir is this work tree's git directory (.git, or
	// .git/worktrees/<name> for a linked worktree).
	GitDir string
	// CommonDir is the directory shared by all worktrees (the main .git).
	CommonDir string
}

// Find returns the repository containing dir, or false when dir is not inside
// a git work tree.
func Find(dir string) (Repo, bool) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Repo{}, false
	}
	for {
		dotgit := filepath.Join(dir, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			if fi.IsDir() {
				return Repo{Top: dir, GitDir: dotgit, CommonDir: commonDir(dotgit)}, true
			}
			if gd := readGitFile(dotgit); gd != "" {
				if common, ok := linkedGitDir(dotgit, gd); ok {
					return Repo{Top: dir, GitDir: gd, CommonDir: common}, true
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return Repo{}, false
		}
		dir = parent
	}
}

// readGitFile resolves a ".git" file ("gitdir: <path>") as used by linked
// worktrees and submodules.
func readGitFile(path string) string {
	b, err := safefs.ReadFile(path, safefs.MaxConfigBytes)
	if err != nil {
		return ""
	}
	line := strings.TrimSpace(string(b))
	gd, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return ""
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(path), gd)
	}
	return filepath.Clean(gd)
}

// linkedGitDir checks the git dir gd that the .git file dotgit points at
// the way git itself does, since a repository can commit such a file and
// the folder it names: a linked worktree's git dir names its repository
// (commondir, a real git dir) and points back at dotgit (its gitdir file);
// any other (a submodule's) must be a real git dir itself. It returns the
// common dir.
func linkedGitDir(dotgit, gd string) (string, bool) {
	b, err := safefs.ReadFile(filepath.Join(gd, "gitdir"), safefs.MaxConfigBytes)
	if err != nil {
		return gd, isGitDir(gd)
	}
	back := strings.TrimSpace(string(b))
	if !filepath.IsAbs(back) {
		back = filepath.Join(gd, back)
	}
	if !samePath(back, dotgit) {
		return "", false
	}
	common := commonDir(gd)
	return common, common != gd && isGitDir(common)
}

// isGitDir reports whether dir looks like a repository's git dir as git
// requires one: a HEAD file, and objects and refs folders.
func isGitDir(dir string) bool {
	if fi, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// samePath compares two paths once symlinks are resolved.
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// commonDir follows a worktree git dir's "commondir" file to the shared
// directory; for a main repository it is gitDir itself.
func commonDir(gitDir string) string {
	b, err := safefs.ReadFile(filepath.Join(gitDir, "commondir"), safefs.MaxConfigBytes)
	if err != nil {
		return gitDir
	}
	cd := strings.TrimSpace(string(b))
	if cd == "" {
		return gitDir
	}
	if !filepath.IsAbs(cd) {
		cd = filepath.Join(gitDir, cd)
	}
	return filepath.Clean(cd)
}

// Branch returns the checked-out branch name ("feature/auth"), "HEAD" for a
// detached head, or "" when HEAD cannot be read.
func (r Repo) Branch() string {
	b, err := safefs.ReadFile(filepath.Join(r.GitDir, "HEAD"), safefs.MaxConfigBytes)
	if err != nil {
		return ""
	}
	b = bytes.TrimSpace(b)
	if ref, ok := bytes.CutPrefix(b, []byte("ref:")); ok {
		name := strings.TrimSpace(string(ref))
		return strings.TrimPrefix(name, "refs/heads/")
	}
	return "HEAD"
}

// BranchFileName turns a branch name into the file-name form the
// requirements framework uses: "/" becomes "-", and anything outside
// [A-Za-z0-9_-] becomes "_".
func BranchFileName(branch string) string {
	var b strings.Builder
	for _, r := range branch {
		switch {
		case r == '/':
			b.WriteByte('-')
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// HeadCache remembers the branch read from a HEAD file with that file's
// size and modification time, so that asking again costs one stat while
// HEAD is unchanged. Its zero value is an empty cache.
type HeadCache struct {
	// Dir is the folder asked about; Head its repository's HEAD file.
	Dir    string `json:"dir,omitempty"`
	Head   string `json:"head,omitempty"`
	ModNS  int64  `json:"mod_ns,omitempty"`
	Size   int64  `json:"size,omitempty"`
	Branch string `json:"branch,omitempty"`
}

// CachedBranch returns the branch checked out in the repository holding
// dir (as Branch does; "" outside a repository), reading HEAD only when it
// changed since c was filled, and refills c.
func CachedBranch(dir string, c *HeadCache) string {
	if c.Head != "" && c.Dir == dir {
		if fi, err := os.Stat(c.Head); err == nil && fi.ModTime().UnixNano() == c.ModNS && fi.Size() == c.Size {
			return c.Branch
		}
	}
	*c = HeadCache{}
	repo, ok := Find(dir)
	if !ok {
		return ""
	}
	head := filepath.Join(repo.GitDir, "HEAD")
	fi, err := os.Stat(head)
	if err != nil {
		return ""
	}
	b := repo.Branch()
	if b != "" {
		*c = HeadCache{Dir: dir, Head: head, ModNS: fi.ModTime().UnixNano(), Size: fi.Size(), Branch: b}
	}
	return b
}
