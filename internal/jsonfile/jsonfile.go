// Package jsonfile owns how spcstr keeps a JSON document on disk safely when
// many short-lived processes share it: an exclusive lock (a sibling ".lock"
// file, flock(2)) held across the whole read-modify-write, atomic
// replacement (temp file in the same folder, fsync, rename), and a document
// that no longer parses set aside under a new name instead of being
// overwritten. Every path below a project's .spcstr/ is resolved inside it
// (internal/safefs): a symlink there never leads a write, lock or rename
// out of the project.
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

	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// LockTimeout bounds how long Update waits for another process's lock.
var LockTimeout = 10 * time.Second

// ErrLockTimeout is returned when the lock could not be taken in time.
var ErrLockTimeout = safefs.ErrLockTimeout

// Lock takes the exclusive lock that guards path (the file
// LockPath(path)), creating missing parent folders. Nothing below a
// project's .spcstr/ is followed out of it (see safefs.Beneath). The
// caller must call the returned unlock function.
func Lock(ctx context.Context, path string) (unlock func(), err error) {
	root, rel, err := safefs.BeneathCreate(path)
	if err != nil {
		return nil, err
	}
	release, err := lockIn(ctx, root, rel)
	if err != nil {
		root.Close()
		return nil, err
	}
	return func() { release(); root.Close() }, nil
}

// LockIn is Lock for the file rel inside root (whose caller keeps it open
// until unlock).
func LockIn(ctx context.Context, root *os.Root, rel string) (unlock func(), err error) {
	return lockIn(ctx, root, rel)
}

func lockIn(ctx context.Context, root *os.Root, rel string) (func(), error) {
	unlock, err := safefs.Lock(ctx, root, lockName(rel), LockTimeout)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", filepath.Join(root.Name(), rel), err)
	}
	return unlock, nil
}

// LockPath returns the lock file guarding path.
func LockPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

func lockName(rel string) string {
	return filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".lock")
}

// Write replaces path atomically with data: readers see the old document or
// the new one, never a mix, even if the process is killed mid-write. No
// symlink below a project's .spcstr/ is followed out of it. The folder
// must exist.
func Write(path string, data []byte) error {
	root, rel, err := safefs.Beneath(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer root.Close()
	return writeIn(root, rel, data)
}

func writeIn(root *os.Root, rel string, data []byte) error {
	if err := safefs.WriteAtomic(root, rel, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(root.Name(), rel), err)
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
// A file that does not parse, is not a regular file (a directory, a FIFO)
// or is larger than safefs.MaxStateBytes is renamed to SetAsideName(path)
// (never overwritten, never deleted) and ErrCorrupt is returned with the
// new name.
func Read(path string, v any) error {
	root, rel, err := safefs.Beneath(path)
	if err != nil {
		return err
	}
	defer root.Close()
	return readIn(root, rel, v)
}

func readIn(root *os.Root, rel string, v any) error {
	path := filepath.Join(root.Name(), rel)
	data, err := safefs.ReadFileIn(root, rel, safefs.MaxStateBytes)
	if err == nil {
		err = Decode(data, v)
	} else if !errors.Is(err, safefs.ErrNotRegular) && !errors.Is(err, safefs.ErrTooLarge) {
		return err
	}
	if err != nil {
		aside := SetAsideName(rel, time.Now())
		if rerr := root.Rename(rel, aside); rerr != nil {
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
	return update(ctx, path, "", v, fn)
}

// UpdateWithLock is Update with the exclusive lock taken on the file
// lockName in path's folder instead of LockPath(path): for a document
// shared with another program that serialises its read-modify-writes on
// a lock file of that name (the requirements framework's <branch>.lock).
func UpdateWithLock(ctx context.Context, path, lockName string, v any, fn func(fresh bool, readErr error) (changed bool, err error)) error {
	if lockName == "" || filepath.Base(lockName) != lockName {
		return fmt.Errorf("lock %s: lock name %q is not a file name", path, lockName)
	}
	return update(ctx, path, lockName, v, fn)
}

func update(ctx context.Context, path, lockName string, v any, fn func(fresh bool, readErr error) (changed bool, err error)) error {
	root, rel, err := safefs.BeneathCreate(path)
	if err != nil {
		return err
	}
	defer root.Close()
	var unlock func()
	if lockName == "" {
		unlock, err = lockIn(ctx, root, rel)
	} else {
		lockRel := filepath.Join(filepath.Dir(rel), lockName)
		if unlock, err = safefs.Lock(ctx, root, lockRel, LockTimeout); err != nil {
			err = fmt.Errorf("lock %s: %w", filepath.Join(root.Name(), lockRel), err)
		}
	}
	if err != nil {
		return err
	}
	defer unlock()
	fresh := false
	readErr := readIn(root, rel, v)
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
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return writeIn(root, rel, append(data, '\n'))
}
