// Package permchan owns the channel between a PermissionRequest hook and the
// dashboard that answers it: where it lives (a 0700 folder of the user's,
// outside every project), the dashboard's lease (a Unix socket it listens
// on, keyed by the project's root), and the request/answer protocol (one
// request per connection, carrying the hook's own nonce, answered at most
// once before its deadline and acknowledged by the hook).
//
// The hook's side (Ask) is linked into the lean hook binary: it uses only
// the standard library's net, crypto/rand and encoding/json, and costs one
// lstat of the folder and one of the socket when no dashboard is open.
package permchan

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// ErrUnsafeDir is returned when the channel's folder exists but is not a
// folder only the user can reach (a symlink, another owner, group or
// world access).
var ErrUnsafeDir = errors.New("channel folder is not private to the user")

// Dir returns the channel's folder: $XDG_RUNTIME_DIR/spcstr when the
// variable names an absolute folder, else /tmp/spcstr-<uid>. It does not
// create it (MakeDir does).
func Dir(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if rt := getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		return filepath.Join(rt, "spcstr")
	}
	return filepath.Join(os.TempDir(), "spcstr-"+strconv.Itoa(os.Getuid()))
}

// SocketPath is the socket of the dashboard of the project rooted at root,
// in dir: a hash of the root, so that the path is short (a Unix socket's
// path is limited to about 100 bytes) and names no project.
func SocketPath(dir, root string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(dir, hex.EncodeToString(sum[:12])+".sock")
}

// CheckDir reports whether dir is a real folder (not a symlink), owned by
// the user, with no access for group or others. It is the hook's one
// lstat: a folder that fails it is never used.
func CheckDir(dir string) error {
	why, err := safefs.PrivateDir(dir)
	if err != nil {
		return err
	}
	if why != "" {
		return fmt.Errorf("%s: %w (%s)", dir, ErrUnsafeDir, why)
	}
	return nil
}

// MakeDir creates dir with mode 0700 when it is missing and checks it
// (CheckDir); the dashboard calls it before it listens.
func MakeDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("make channel folder: %w", err)
	}
	return CheckDir(dir)
}
