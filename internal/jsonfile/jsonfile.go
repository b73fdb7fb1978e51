// Package jsonfile owns how spcstr keeps a JSON document on disk safely when
// many short-lived processes share it: an exclusive lock (a sibling ".lock"
// file, github.com/gofrs/flock) held across the whole read-modify-write,
// atomic replacement (temp file in the same folder, fsync, rename:
// github.com/google/renameio), and a document that no longer parses set
// aside under a new name instead of being overwritten.
package jsonfile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// LockTimeout bounds how long Update waits for another process's lock.
var LockTimeout = 10 * time.Second

// ErrLockTimeout is returned when the lock could not be taken in time.
var ErrLockTimeout = errors.New("timed out waiting for lock")

// Lock takes the exclusive lock that guards path (the file path + ".lock"),
// creating missing parent folders. The caller must call the returned
// unlock function.
func Lock(ctx context.Context, path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create folder for %s: %w", path, err)
	}
	fl := flock.New(LockPath(path))
	// Fast path: uncontended lock without timers.
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		// Wait in the kernel instead of polling: when the hooks of many
		// parallel tool calls queue on one session's lock, polling every
		// few milliseconds burns the CPU that Claude Code itself needs.
		ctx, cancel := context.WithTimeout(ctx, LockTimeout)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- fl.Lock() }()
		select {
		case err := <-done:
			if err != nil {
				return nil, fmt.Errorf("lock %s: %w", path, err)
			}
		case <-ctx.Done():
			// Give up; release the lock if the wait still succeeds later.
			go func() {
				if <-done == nil {
					_ = fl.Unlock()
				}
			}()
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("lock %s: %w", path, ErrLockTimeout)
			}
			return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
		}
	}
	return func() { _ = fl.Unlock() }, nil
}

// LockPath returns the lock file guarding path.
func LockPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// Write replaces path atomically with data: readers see the old document or
// the new one, never a mix, even if the process is killed mid-write.
func Write(path string, data []byte) error {
	if err := writeAtomic(path, data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteJSON marshals v (indented, trailing newline) and writes it with Write.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return Write(path, append(data, '\n'))
}

// ErrCorrupt wraps the parse error of a document that was set aside.
var ErrCorrupt = errors.New("corrupt JSON document")

// Read loads path into v. A missing file is reported with fs.ErrNotExist.
// A file that does not parse is renamed to SetAsideName(path) (never
// overwritten, never deleted) and ErrCorrupt is returned with the new name.
func Read(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := Decode(data, v); err != nil {
		aside := SetAsideName(path, time.Now())
		if rerr := os.Rename(path, aside); rerr != nil {
			return fmt.Errorf("%w: %s: %v (and could not set it aside: %v)", ErrCorrupt, path, err, rerr)
		}
		return fmt.Errorf("%w: %s set aside as %s: %v", ErrCorrupt, path, filepath.Base(aside), err)
	}
	return nil
}

// Decode parses data strictly enough to notice a damaged document: it must
// be one JSON value whose types match v.
func Decode(data []byte, v any) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return errors.New("empty file")
	}
	return json.Unmarshal(data, v)
}

// SetAsideName is the name a corrupt document is moved to:
// "<name>.corrupt-<UTC timestamp>". It no longer ends in .json, so nothing
// reads it as live data, and doctor lists it.
func SetAsideName(path string, now time.Time) string {
	return fmt.Sprintf("%s.corrupt-%s", path, now.UTC().Format("20060102T150405.000000000Z"))
}

// Update runs a locked read-modify-write of the JSON document at path: it
// takes the lock, reads the document into v (fresh reports whether it was
// missing or set aside as corrupt), calls fn, and writes v back atomically
// if fn returns changed == true. The read error of a corrupt document is
// passed to fn through readErr so that it can be recorded.
func Update(ctx context.Context, path string, v any, fn func(fresh bool, readErr error) (changed bool, err error)) error {
	unlock, err := Lock(ctx, path)
	if err != nil {
		return err
	}
	defer unlock()
	fresh := false
	readErr := Read(path, v)
	switch {
	case readErr == nil:
	case errors.Is(readErr, fs.ErrNotExist):
		fresh, readErr = true, nil
	case errors.Is(readErr, ErrCorrupt):
		fresh = true
	default:
		return readErr
	}
	changed, err := fn(fresh, readErr)
	if err != nil || !changed {
		return err
	}
	return WriteJSON(path, v)
}
