//go:build windows

package safefs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// ErrLockTimeout is returned when a lock could not be taken in time.
var ErrLockTimeout = errors.New("timed out waiting for lock")

// Lock takes an exclusive lock on the file name below root (created if
// missing), waiting at most timeout. The caller must call unlock.
func Lock(ctx context.Context, root *os.Root, name string, timeout time.Duration) (unlock func(), err error) {
	return lock(ctx, root, name, false, timeout)
}

// LockShared is Lock with a shared lock.
func LockShared(ctx context.Context, root *os.Root, name string, timeout time.Duration) (unlock func(), err error) {
	return lock(ctx, root, name, true, timeout)
}

func lock(ctx context.Context, root *os.Root, name string, shared bool, timeout time.Duration) (func(), error) {
	if dir := filepath.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create folder for %s: %w", name, err)
		}
	}
	fl := flock.New(filepath.Join(root.Name(), name))
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	try := fl.TryLockContext
	if shared {
		try = fl.TryRLockContext
	}
	ok, err := try(ctx, 5*time.Millisecond)
	if err != nil || !ok {
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			err = ErrLockTimeout
		}
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	return func() { _ = fl.Unlock() }, nil
}

// LockFile is a no-op on Windows: the only other process that locks
// spcstr's files this way (the Python requirements framework) uses fcntl,
// which Windows does not have.
func LockFile(ctx context.Context, f *os.File, shared bool, timeout time.Duration) error {
	return nil
}

// TryLock takes an exclusive lock on the file name below root only if it
// is free at once: ok is false, without waiting, when it is held.
func TryLock(root *os.Root, name string) (unlock func(), ok bool, err error) {
	fl := flock.New(filepath.Join(root.Name(), name))
	ok, err = fl.TryLock()
	if err != nil || !ok {
		return nil, false, err
	}
	return func() { _ = fl.Unlock() }, true, nil
}
