package gitrepo

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// HeadCommit returns the commit HEAD points at, read from the git files
// (HEAD, the loose ref, packed-refs) without running git. ok is false when
// that cannot be told: HEAD unreadable, a ref store spcstr does not read
// (reftable), a malformed value. An unborn branch (no commit yet) is "",
// true: the first commit moves it.
func (r Repo) HeadCommit() (commit string, ok bool) {
	b, err := safefs.ReadFile(filepath.Join(r.GitDir, "HEAD"), safefs.MaxConfigBytes)
	if err != nil {
		return "", false
	}
	b = bytes.TrimSpace(b)
	ref, isRef := bytes.CutPrefix(b, []byte("ref:"))
	if !isRef {
		return objectID(string(b))
	}
	name := strings.TrimSpace(string(ref))
	if name == "refs/heads/.invalid" || !strings.HasPrefix(name, "refs/") || strings.Contains(name, "..") {
		return "", false // reftable keeps this stub in HEAD; or not a ref git would write
	}
	return r.resolveRef(name)
}

// resolveRef reads ref name (refs/heads/x) as git does: the loose ref file
// (in the worktree's git dir for its own refs, else in the common dir),
// then packed-refs. A missing ref is "", true.
func (r Repo) resolveRef(name string) (string, bool) {
	dirs := []string{r.CommonDir}
	if r.GitDir != r.CommonDir && !strings.HasPrefix(name, "refs/heads/") && !strings.HasPrefix(name, "refs/tags/") {
		dirs = []string{r.GitDir, r.CommonDir} // per-worktree refs (refs/bisect, refs/worktree)
	}
	for _, d := range dirs {
		b, err := safefs.ReadFile(filepath.Join(d, filepath.FromSlash(name)), safefs.MaxConfigBytes)
		if err == nil {
			v := strings.TrimSpace(string(b))
			if strings.HasPrefix(v, "ref:") {
				return "", false // a symbolic ref below HEAD: rare, not followed
			}
			return objectID(v)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", false
		}
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, "reftable")); err == nil {
		return "", false
	}
	f, _, err := safefs.Open(filepath.Join(r.CommonDir, "packed-refs"))
	if err != nil {
		return "", errors.Is(err, fs.ErrNotExist)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		id, ref, found := strings.Cut(line, " ")
		if found && ref == name {
			return objectID(id)
		}
	}
	if sc.Err() != nil {
		return "", false
	}
	return "", true
}

// objectID checks that s is a SHA-1 or SHA-256 object name.
func objectID(s string) (string, bool) {
	if len(s) != 40 && len(s) != 64 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return "", false
		}
	}
	return s, true
}
