//go:build unix

package safefs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrLockTimeout is returned when a lock could not be taken in time.
var ErrLockTimeout = errors.New("timed out waiting for lock")

// Lock takes an exclusive flock(2) on the file name below root (creating
// it, and its folders, if missing), waiting at most timeout or until ctx
// ends. The caller must call the returned unlock function.
func Lock(ctx context.Context, root *os.Root, name string, timeout time.Duration) (unlock func(), err error) {
	return lock(ctx, root, name, syscall.LOCK_EX, timeout)
}

// LockShared is Lock with a shared lock.
func LockShared(ctx context.Context, root *os.Root, name string, timeout time.Duration) (unlock func(), err error) {
	return lock(ctx, root, name, syscall.LOCK_SH, timeout)
}

func lock(ctx context.Context, root *os.Root, name string, how int, timeout time.Duration) (unlock func(), err error) {
	if dir := filepath.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create folder for %s: %w", name, err)
		}
	}
	f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", name, err)
	}
	if err := LockFile(ctx, f, how == syscall.LOCK_SH, timeout); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// LockFile takes flock(2) on an open file (shared or exclusive), waiting at
// most timeout. Closing the file releases it. On timeout the file must
// still be closed by the caller; a wait still under way then releases the
// lock it gets.
func LockFile(ctx context.Context, f *os.File, shared bool, timeout time.Duration) error {
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	flock := func(flags int) (err error) {
		cerr := sc.Control(func(fd uintptr) {
			for {
				err = syscall.Flock(int(fd), flags)
				if !errors.Is(err, syscall.EINTR) {
					return
				}
			}
		})
		if cerr != nil {
			return cerr
		}
		return err
	}
	// Fast path: uncontended lock without timers or threads.
	err = flock(how | syscall.LOCK_NB)
	if err == nil {
		return nil
	}
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	// Wait in the kernel instead of polling: when the hooks of many
	// parallel tool calls queue on one lock, polling burns the CPU that
	// Claude Code itself needs.
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- flock(how) }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		return nil
	case <-ctx.Done():
		// Give up; drop the lock if the wait still succeeds later.
		go func() {
			if <-done == nil {
				_ = flock(syscall.LOCK_UN)
			}
		}()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("lock %s: %w", f.Name(), ErrLockTimeout)
		}
		return fmt.Errorf("lock %s: %w", f.Name(), ctx.Err())
	}
}

// TryLock takes an exclusive flock(2) on the file name below root (created
// if missing, its folder not) only if it is free at once: ok is false,
// without waiting, when another open file holds it. The caller calls the
// returned unlock function when ok.
func TryLock(root *os.Root, name string) (unlock func(), ok bool, err error) {
	f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, false, fmt.Errorf("open lock %s: %w", name, err)
	}
	sc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, false, fmt.Errorf("lock %s: %w", name, err)
	}
	if cerr := sc.Control(func(fd uintptr) {
		for {
			err = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if !errors.Is(err, syscall.EINTR) {
				return
			}
		}
	}); cerr != nil {
		err = cerr
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("lock %s: %w", name, err)
	}
	return func() { f.Close() }, true, nil
}
