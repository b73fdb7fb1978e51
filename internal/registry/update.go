package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// The registry's locking is the Python requirements framework's, so that
// both can run at once without losing each other's sessions:
//
//   - a reader takes a shared flock on sessions.json itself;
//   - the framework writes sessions.tmp (under an exclusive flock on it)
//     and renames it over sessions.json.
//
// spcstr updates in place instead: it takes an exclusive flock on
// sessions.json (so no framework reader can start a read-modify-write
// meanwhile, and readers already waiting see spcstr's result, not a
// replaced file), waits while a framework write is under way (sessions.tmp
// exists and is fresh) and re-opens if the file was replaced, then rewrites
// the same file. The new text is padded with trailing spaces to at least
// the old length and written in one pwrite, so even a kill mid-update
// leaves valid JSON. spcstr processes also serialize on a lock file of
// their own (.sessions.json.lock).

// pythonTmpMaxAge is how old a sessions.tmp may be and still count as a
// framework write under way (an older one was left by a crash).
const pythonTmpMaxAge = 5 * time.Second

func pythonTmp(rel string) string {
	return strings.TrimSuffix(rel, filepath.Ext(rel)) + ".tmp"
}

// update runs one locked read-modify-write of the registry at path. fn
// changes f and reports whether anything changed; nothing is written
// otherwise. A registry that does not parse, or holds entries that do
// not, is copied aside as <path>.corrupt-<time> before it is rewritten.
func update(ctx context.Context, path string, fn func(f *File) bool) error {
	root, rel, err := safefs.BeneathCreate(path)
	if err != nil {
		return err
	}
	defer root.Close()
	unlock, err := safefs.Lock(ctx, root, filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".lock"), jsonfile.LockTimeout)
	if err != nil {
		return fmt.Errorf("lock registry: %w", err)
	}
	defer unlock()
	deadline := time.Now().Add(jsonfile.LockTimeout)
	u := &updater{root: root, rel: rel, deadline: deadline}
	defer u.release()
	for {
		if time.Now().After(deadline) {
			return fmt.Errorf("registry %s: %w", path, jsonfile.ErrLockTimeout)
		}
		retry, err := u.once(ctx, fn)
		if !retry {
			return err
		}
	}
}

// updater is one registry update. When a framework writer replaces the
// registry right after spcstr's update (it read before spcstr's lock),
// spcstr keeps the replaced file locked, makes its update again on the new
// one, and before letting go writes the final text into the replaced file
// too: a framework reader already waiting on it then reads the final
// registry, not a stale one.
type updater struct {
	root     *os.Root
	rel      string
	deadline time.Time
	replaced []*os.File // earlier files, still locked
	final    []byte     // the last text written
	clobbers int
}

// maxClobbers bounds how often an update is made again after a framework
// writer replaced it.
const maxClobbers = 3

func (u *updater) release() {
	for _, f := range u.replaced {
		if u.final != nil {
			_ = rewrite(f, u.final)
		}
		f.Close()
	}
}

func (u *updater) once(ctx context.Context, fn func(f *File) bool) (retry bool, err error) {
	root, rel, deadline := u.root, u.rel, u.deadline
	const flags = os.O_RDWR | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	created := false
	f, err := root.OpenFile(rel, flags, 0)
	if errors.Is(err, fs.ErrNotExist) {
		// Created only to be locked; removed again if nothing is written.
		f, err = root.OpenFile(rel, flags|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			return true, nil
		}
		created = err == nil
	}
	if err != nil {
		if errors.Is(err, syscall.EISDIR) {
			return true, setAsideName(root, rel)
		}
		return false, fmt.Errorf("open registry: %w", err)
	}
	keep := false
	defer func() {
		if !keep {
			f.Close()
		}
	}()
	if fi, err := f.Stat(); err != nil {
		return false, err
	} else if !fi.Mode().IsRegular() {
		f.Close()
		if err := setAsideName(root, rel); err != nil {
			return false, err
		}
		return true, nil
	}
	if err := safefs.LockFile(ctx, f, false, time.Until(deadline)); err != nil {
		return false, fmt.Errorf("lock registry: %w", err)
	}
	if waitPythonWrite(root, pythonTmp(rel), deadline) {
		return true, nil // the framework replaced the file: lock the new one
	}
	locked, err := f.Stat()
	if err != nil {
		return false, err
	}
	// Written a moment ago: another program may be updating it too.
	active := time.Since(locked.ModTime()) < 2*time.Second
	if cur, err := root.Lstat(rel); err != nil || !os.SameFile(cur, locked) {
		return true, nil // replaced between open and lock
	}
	data, err := io.ReadAll(io.LimitReader(f, safefs.MaxStateBytes+1))
	if err != nil {
		return false, fmt.Errorf("read registry: %w", err)
	}
	var doc File
	damaged := false
	switch trimmed := bytes.TrimSpace(data); {
	case len(trimmed) == 0:
	case len(data) > safefs.MaxStateBytes:
		damaged = true
	case json.Unmarshal(trimmed, &doc) != nil:
		damaged, doc = true, File{}
	default:
		damaged = len(doc.dropped) > 0
	}
	if damaged {
		// Keep the whole original before anything is rewritten.
		if err := safefs.WriteAtomic(root, jsonfile.SetAsideName(rel, time.Now()), data, 0o644); err != nil {
			return false, fmt.Errorf("set aside damaged registry: %w", err)
		}
	}
	if doc.Version == "" {
		doc.Version = "1.0"
	}
	if doc.Sessions == nil {
		doc.Sessions = map[string]Entry{}
	}
	if !fn(&doc) && !damaged {
		if created && len(data) == 0 {
			_ = root.Remove(rel)
		}
		return false, nil
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return false, fmt.Errorf("encode registry: %w", err)
	}
	out = append(out, '\n')
	n := len(out)
	if pad := len(data) - n; pad > 0 {
		// Valid JSON at every moment: the old text is overwritten in one
		// write by at least as many bytes, then trimmed.
		out = append(out, bytes.Repeat([]byte{' '}, pad)...)
	}
	if _, err := f.WriteAt(out, 0); err != nil {
		_, _ = f.WriteAt(data, 0)
		_ = f.Truncate(int64(len(data)))
		return false, fmt.Errorf("write registry (rolled back): %w", err)
	}
	if err := f.Truncate(int64(n)); err != nil {
		return false, fmt.Errorf("write registry: %w", err)
	}
	if err := f.Sync(); err != nil {
		return false, fmt.Errorf("write registry: %w", err)
	}
	u.final = out[:n]
	if active && u.clobbers < maxClobbers && clobbered(root, rel, locked, deadline) {
		u.clobbers++
		u.replaced = append(u.replaced, f)
		keep = true
		return true, nil
	}
	return false, nil
}

// rewrite replaces the text of a locked registry file in place.
func rewrite(f *os.File, text []byte) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	out := text
	if pad := int(fi.Size()) - len(text); pad > 0 {
		out = append(append([]byte(nil), text...), bytes.Repeat([]byte{' '}, pad)...)
	}
	if _, err := f.WriteAt(out, 0); err != nil {
		return err
	}
	return f.Truncate(int64(len(text)))
}

// clobberWindow is how long, after an update, spcstr (still holding the
// lock, so no framework reader can start) watches for a framework writer
// that read the registry before the lock: such a writer creates
// sessions.tmp moments after its read, then renames it over the registry,
// undoing the update.
const clobberWindow = 10 * time.Millisecond

// clobbered reports whether a framework writer replaced the registry after
// spcstr's update (which must then be made again).
func clobbered(root *os.Root, rel string, mine os.FileInfo, deadline time.Time) bool {
	tmp := pythonTmp(rel)
	for end := time.Now().Add(clobberWindow); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if waitPythonWrite(root, tmp, deadline) {
			break
		}
	}
	cur, err := root.Lstat(rel)
	return err == nil && !os.SameFile(cur, mine)
}

// waitPythonWrite waits while the framework is writing the registry (its
// sessions.tmp exists and is fresh) and reports whether it waited: the
// framework's rename then replaced sessions.json.
func waitPythonWrite(root *os.Root, tmp string, deadline time.Time) bool {
	waited := false
	for {
		fi, err := root.Lstat(tmp)
		if err != nil || time.Since(fi.ModTime()) > pythonTmpMaxAge || time.Now().After(deadline) {
			return waited
		}
		waited = true
		time.Sleep(time.Millisecond)
	}
}

func setAsideName(root *os.Root, rel string) error {
	if err := root.Rename(rel, jsonfile.SetAsideName(rel, time.Now())); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("set aside registry: %w", err)
	}
	return nil
}

// Load reads the registry under a shared lock (the framework's reader
// protocol). A missing or unreadable registry is empty: the registry is
// advisory. Entries that do not parse are left out.
func Load(path string) File {
	empty := File{Version: "1.0", Sessions: map[string]Entry{}}
	f, _, err := safefs.Open(path)
	if err != nil {
		return empty
	}
	defer f.Close()
	if err := safefs.LockFile(context.Background(), f, true, 2*time.Second); err != nil {
		return empty
	}
	data, err := io.ReadAll(io.LimitReader(f, safefs.MaxStateBytes+1))
	if err != nil || len(data) > safefs.MaxStateBytes {
		return empty
	}
	var doc File
	if jsonfile.Decode(data, &doc) != nil || doc.Sessions == nil {
		return empty
	}
	return doc
}
