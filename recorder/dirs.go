package recorder

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// errNotProject means the hook runs outside a spcstr project: it does
// nothing at all.
var errNotProject = errors.New("not a spcstr project")

// prepareDirs makes sure .spcstr/logs exists, without ever following a
// path out of .spcstr/ and without creating anything but .spcstr itself
// outside it. With autoInit, .spcstr/ is created only in a project root
// that already exists and is named by an absolute path: a payload's
// missing or relative cwd never makes spcstr create a folder tree.
func prepareDirs(l state.Layout, autoInit bool) error {
	if !l.Exists() {
		if !autoInit {
			return errNotProject
		}
		if !filepath.IsAbs(l.Root) {
			return fmt.Errorf("auto-init: project root %q is not an absolute path", l.Root)
		}
		if fi, err := os.Stat(l.Root); err != nil || !fi.IsDir() {
			return fmt.Errorf("auto-init: project root %s is not an existing folder", l.Root)
		}
		if err := os.Mkdir(l.Dir(), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("auto-init %s: %w", l.Dir(), err)
		}
	}
	// Fast path: logs/ is already a real folder (a symlink is not).
	if fi, err := os.Lstat(l.LogsDir()); err == nil && fi.IsDir() {
		return nil
	}
	root, err := os.OpenRoot(l.Dir())
	if err != nil {
		return fmt.Errorf("open %s: %w", l.Dir(), err)
	}
	defer root.Close()
	if err := root.Mkdir("logs", 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", l.LogsDir(), err)
	}
	return nil
}

// repairLogs mends logs torn by a hook that was killed mid-append, whatever
// event it was recording: one read of an (almost always empty) folder.
func (r *run) repairLogs(ctx context.Context) {
	if err := logs.RepairInterrupted(ctx, r.layout.LogsDir()); err != nil {
		r.fail("repair interrupted logs: %v", err)
	}
}

// stdinTimeout is hookio.StdinTimeout, or $SPCSTR_STDIN_TIMEOUT (a Go
// duration) when set.
func stdinTimeout(getenv func(string) string) time.Duration {
	if d, err := time.ParseDuration(getenv("SPCSTR_STDIN_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return hookio.StdinTimeout
}
