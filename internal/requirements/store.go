package requirements

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/state"
)

// NoGitBranch is the branch name used outside git.
const NoGitBranch = "default"

// Location is where a project's requirement state lives (docs/layout.md).
type Location struct {
	Root string
	// Branch is the checked-out branch ("feature/auth"), "HEAD" when
	// detached, NoGitBranch outside git.
	Branch string
	// Dir is <git common dir>/requirements, shared by all worktrees, or
	// <root>/.spcstr/requirements outside git.
	Dir string
	// Path is Dir/<branch file name>.json.
	Path string
}

// ErrStateDirRefused is wrapped by Load, Update and UpdateMetrics when the
// state folder is a symlink: a repository could commit one that leads
// anywhere, and spcstr never writes through it.
var ErrStateDirRefused = errors.New("requirements state folder refused")

// checkDir refuses a state folder (or a parent up to the git dir) that is
// a symlink.
func (l Location) checkDir() error {
	if fi, err := os.Lstat(l.Dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w: %s is a symlink", ErrStateDirRefused, l.Dir)
	}
	if fi, err := os.Lstat(filepath.Join(l.Dir, "sessions")); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w: %s/sessions is a symlink", ErrStateDirRefused, l.Dir)
	}
	return nil
}

// Locate finds the state file of root's current branch. It reads a few
// small files under .git and never runs git.
func Locate(root string) Location {
	loc := Location{Root: root, Branch: NoGitBranch, Dir: filepath.Join(root, state.DirName, "requirements")}
	if repo, ok := gitrepo.Find(root); ok {
		loc.Dir = filepath.Join(repo.CommonDir, "requirements")
		loc.Branch = repo.Branch()
		if loc.Branch == "" {
			loc.Branch = "HEAD"
		}
	}
	loc.Path = filepath.Join(loc.Dir, gitrepo.BranchFileName(loc.Branch)+".json")
	return loc
}

// LockName is the framework's lock file of the state file: "<branch
// file>.lock" beside "<branch file>.json". Each read-modify-write holds an
// exclusive flock on it, spcstr's and the framework's alike.
func (l Location) LockName() string {
	return strings.TrimSuffix(filepath.Base(l.Path), ".json") + ".lock"
}

// stateReadLockTimeout bounds the wait for the shared lock a read takes.
const stateReadLockTimeout = 2 * time.Second

// unix returns t as whole Unix seconds, as the framework writes times.
func unix(t time.Time) float64 { return float64(t.Unix()) }

// Load reads the branch's state under a shared flock on the file itself,
// as the framework reads it (writers replace the file atomically, so the
// lock only keeps out a writer that rewrites it in place). A missing file
// is an empty state. Old session keys are migrated in memory. A file that
// does not parse is reported, not moved: only writers set files aside.
func (l Location) Load() (*File, error) {
	f := &File{}
	if err := l.checkDir(); err != nil {
		return f, err
	}
	data, err := readShared(l.Path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return f, nil
		}
		return f, fmt.Errorf("read %s: %w", l.Path, err)
	}
	if err := jsonfile.Decode(data, f); err != nil {
		return &File{}, fmt.Errorf("%w: %s: %v", jsonfile.ErrCorrupt, l.Path, err)
	}
	f.normalize()
	f.MigrateKeys()
	return f, nil
}

// normalize replaces null requirements and entries with empty ones.
func (f *File) normalize() {
	for name, r := range f.Requirements {
		if r == nil {
			f.Requirements[name] = &Requirement{}
			continue
		}
		for k, e := range r.Sessions {
			if e == nil {
				r.Sessions[k] = &Entry{}
			}
		}
	}
}

// Update runs a locked read-modify-write of the branch's state: fn changes
// the file and reports whether it did; the file is written (atomically)
// only then, or when loading migrated old session keys. A state file that
// does not parse is set aside and replaced by a fresh one; notice then says
// where the old one went.
func (l Location) Update(ctx context.Context, now time.Time, fn func(f *File) bool) (notice string, err error) {
	var f File
	if err := l.checkDir(); err != nil {
		return "", err
	}
	err = jsonfile.UpdateWithLock(ctx, l.Path, l.LockName(), &f, func(fresh bool, readErr error) (bool, error) {
		if readErr != nil {
			notice = fmt.Sprintf("requirements state could not be read and was set aside (%v); starting a fresh one", readErr)
		}
		changed := false
		if bad := f.Damaged(); len(bad) > 0 {
			// Keep what parses; the whole original goes aside first.
			aside, err := setAsideCopy(l.Path, now)
			if err != nil {
				return false, fmt.Errorf("entries %v of %s do not parse, and it could not be set aside: %w", bad, l.Path, err)
			}
			notice = fmt.Sprintf("requirements state entries %s did not parse and were dropped; the original is kept as %s", strings.Join(bad, ", "), filepath.Base(aside))
			changed = true
		}
		if fresh {
			f = File{}
		}
		if f.Version == "" {
			f.Version = StateVersion
		}
		if f.Branch == "" {
			f.Branch = l.Branch
		}
		if f.Project == "" {
			f.Project = l.Root
		}
		if f.CreatedAt == 0 {
			f.CreatedAt = unix(now)
		}
		if f.Requirements == nil {
			f.Requirements = map[string]*Requirement{}
		}
		f.normalize()
		if f.MigrateKeys() {
			changed = true
		}
		if fn(&f) {
			changed = true
		}
		if changed {
			f.UpdatedAt = unix(now)
		}
		return changed, nil
	})
	return notice, err
}

// setAsideCopy copies the file at path to jsonfile.SetAsideName(path) and
// returns that name.
func setAsideCopy(path string, now time.Time) (string, error) {
	data, err := safefs.ReadFile(path, safefs.MaxStateBytes)
	if err != nil {
		return "", err
	}
	aside := jsonfile.SetAsideName(path, now)
	return aside, jsonfile.Write(aside, data)
}

// readShared reads a regular file (at most safefs.MaxStateBytes) under a
// shared flock on it. A lock that cannot be had in time is not waited for
// longer: the file is read all the same (writers replace it atomically).
func readShared(path string) ([]byte, error) {
	fh, fi, err := safefs.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	_ = safefs.LockFile(context.Background(), fh, true, stateReadLockTimeout)
	if fi.Size() > safefs.MaxStateBytes {
		return nil, fmt.Errorf("%s: %w", path, safefs.ErrTooLarge)
	}
	data, err := io.ReadAll(io.LimitReader(fh, safefs.MaxStateBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > safefs.MaxStateBytes {
		return nil, fmt.Errorf("%s: %w", path, safefs.ErrTooLarge)
	}
	return data, nil
}
