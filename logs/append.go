// Package logs owns .spcstr/logs/*.json: which files are logs and what
// they are called (Kind, Name, Classify), how an entry is appended, and
// how logs are read. Each log is one JSON array, at rest always valid,
// appended in constant time whatever its size.
//
// Format: "[\n" + one entry per line, lines joined by ",\n" + "\n]\n". An
// append takes the log's lock, overwrites the closing bracket with
// ",\n<entry>\n]\n", and never reads or rewrites the array. A new log is
// created with its first entry atomically; an append that fails (full disk,
// file-size limit) is rolled back. A tail torn by a killed hook is repaired
// by the next hook of any event (RepairInterrupted, through the log's
// in-flight slot), or else by the next append (the partial line is cut off and kept
// in repairs.json); a file that is not a log at all (or a folder, a FIFO) is
// set aside, never overwritten. No path below .spcstr/ is followed out of
// it. A log over its size limit is rotated to <name>.<n>.json.
//
// Readers tolerate a torn tail: Stream and Scan read a whole log, Tail
// follows one from an offset, TailWindow reads the end of one and Backward
// searches one from its end. docs/logs.md describes the format.
package logs

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

// Options tunes Append.
type Options struct {
	// MaxBytes rotates the log to <name>.<n>.json once it is larger than
	// this many bytes (0: never).
	MaxBytes int64
	// NoRepairLog disables recording cut-off torn tails in repairs.json
	// (used for repairs.json itself).
	NoRepairLog bool
	// Sync flushes the log to disk (fsync) once the entry is in it, through
	// the file the append already has open, after the lock is released. A
	// failed fsync is not a failed append: the entry is in the log.
	Sync bool
	// Flush, when set, receives that fsync instead of Append running it:
	// the caller runs Flush.Sync when it chooses (the hook overlaps it with
	// its state write) and must run it once.
	Flush *Flush
}

// Flush is an append's fsync left to its caller (Options.Flush).
type Flush struct {
	f *os.File
}

// Sync flushes the appended log to disk and closes it. A failed fsync is
// not a failed append: the entry is in the log. Without a file (a new log
// is written whole; a failed append) it does nothing.
func (fl *Flush) Sync() {
	if fl == nil || fl.f == nil {
		return
	}
	_ = fl.f.Sync()
	fl.f.Close()
	fl.f = nil
}

// InflightDir is the folder (below the logs folder) that holds one marker
// per append under way to a log without a slot in SlotsFile: created before
// the log is touched, removed once the append is whole. A marker whose log
// is not locked was left by a killed hook; RepairInterrupted mends that log.
const InflightDir = ".inflight"

// Append adds one entry (a single JSON value with no raw newlines: use
// json.Marshal or json.Compact) to the log at path. Nothing below a
// project's .spcstr/ is followed out of it. A new log is created with its
// first entry in one atomic step; an append that fails (a full disk, a
// file-size limit) is rolled back, so the log at rest is always whole.
func Append(ctx context.Context, path string, entry []byte, opt Options) error {
	if len(entry) == 0 || bytes.IndexByte(entry, '\n') >= 0 {
		return errors.New("logs: entry must be one non-empty line of JSON")
	}
	root, rel, err := logRoot(path)
	if err != nil {
		return err
	}
	defer root.Close()
	unlock, err := safefs.Lock(ctx, root, lockName(rel), jsonfile.LockTimeout)
	if err != nil {
		return err
	}
	mark := markInflight(root, rel)
	repaired, f, err := appendLocked(root, rel, entry, opt)
	if err == nil {
		mark.clear()
	}
	mark.close()
	unlock()
	if f != nil {
		switch {
		case err == nil && opt.Flush != nil:
			opt.Flush.f = f // the caller syncs and closes it
		case err == nil && opt.Sync:
			_ = f.Sync()
			f.Close()
		default:
			f.Close()
		}
	}
	if err != nil {
		return err
	}
	noteRepair(ctx, root, rel, repaired, opt)
	return nil
}

// logRoot opens the folder of the log at path (creating it), resolved
// inside .spcstr as safefs.BeneathCreate does, and returns the log's name
// in it: the lock, the slot, the log and its fsync then each take one open.
func logRoot(path string) (*os.Root, string, error) {
	top, rel, err := safefs.BeneathCreate(path)
	if err != nil {
		return nil, "", err
	}
	dir := filepath.Dir(rel)
	if dir == "." {
		return top, rel, nil
	}
	defer top.Close()
	root, err := safefs.OpenRootCreate(top, dir)
	if err != nil {
		return nil, "", fmt.Errorf("open folder for %s: %w", path, err)
	}
	return root, filepath.Base(rel), nil
}

// noteRepair keeps the bytes a repair cut off in repairs.json.
func noteRepair(ctx context.Context, root *os.Root, rel string, repaired []byte, opt Options) {
	if len(bytes.Trim(repaired, " \t\r\n,[]")) == 0 || opt.NoRepairLog {
		return
	}
	rec, _ := json.Marshal(map[string]any{
		"timestamp": time.Now().UTC(),
		"file":      filepath.Base(rel),
		"dropped":   strings.ToValidUTF8(string(repaired), "\uFFFD"),
	})
	_ = Append(ctx, filepath.Join(root.Name(), filepath.Dir(rel), Name(Repairs, "")+Ext), rec, Options{NoRepairLog: true})
}

func lockName(rel string) string {
	return filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".lock")
}

func markerName(rel string) string {
	return filepath.Join(filepath.Dir(rel), InflightDir, filepath.Base(rel))
}

// openLog opens an existing log for update, only if it is a regular file.
func openLog(root *os.Root, rel string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(rel, os.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.EISDIR) {
			return nil, nil, fmt.Errorf("open log %s: %w", rel, safefs.ErrNotRegular)
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, fmt.Errorf("open log %s: %w", rel, safefs.ErrNotRegular)
	}
	return f, fi, nil
}

// appendLocked appends entry to the log at rel, whose lock the caller
// holds. f is the log, still open, when the entry went into an existing
// file (the caller closes it); nil when a new log was written whole.
func appendLocked(root *os.Root, rel string, entry []byte, opt Options) (dropped []byte, f *os.File, err error) {
	if opt.MaxBytes > 0 {
		if fi, err := root.Lstat(rel); err == nil && fi.Mode().IsRegular() && fi.Size() > opt.MaxBytes {
			if err := rotate(root, rel); err != nil {
				return nil, nil, err
			}
		}
	}
	f, fi, err := openLog(root, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, create(root, rel, entry)
	}
	if errors.Is(err, safefs.ErrNotRegular) {
		return nil, nil, setAside(root, rel, entry)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open log: %w", err)
	}
	dropped, notLog, err := extend(f, fi.Size(), entry)
	if notLog {
		f.Close()
		return nil, nil, setAside(root, rel, entry)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return dropped, f, nil
}

// extend appends entry to the open log f of the given size, repairing a
// torn tail first. notLog reports a file that is not a log spcstr can
// extend (the caller sets it aside).
func extend(f *os.File, size int64, entry []byte) (dropped []byte, notLog bool, err error) {
	if size == 0 {
		return nil, false, writeAt(f, 0, size, "[\n", entry)
	}
	isArray, sure, err := startsArray(f, size)
	if err != nil {
		return nil, false, err
	}
	if sure && !isArray {
		return nil, true, nil
	}
	if sure {
		pos, empty, ok, err := findClose(f, size)
		if err != nil {
			return nil, false, err
		}
		if ok {
			if empty {
				return nil, false, writeAt(f, pos, size, "\n", entry)
			}
			return nil, false, writeAt(f, pos, size, ",\n", entry)
		}
	}
	// Torn tail: find the end of the last complete entry.
	cut, empty, ok, err := findLastComplete(f, size)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		return nil, true, nil
	}
	dropped = make([]byte, size-cut)
	if _, err := f.ReadAt(dropped, cut); err != nil && !errors.Is(err, io.EOF) {
		return nil, false, fmt.Errorf("read torn tail: %w", err)
	}
	sep := ",\n"
	if empty {
		sep = "\n"
	}
	return bytes.TrimSpace(dropped), false, writeAt(f, cut, size, sep, entry)
}

// create writes a new log holding entry in one atomic step (temp file,
// rename), so that no reader ever sees an empty or partial new log.
func create(root *os.Root, rel string, entry []byte) error {
	buf := make([]byte, 0, len(entry)+5)
	buf = append(append(append(buf, "[\n"...), entry...), "\n]\n"...)
	if err := safefs.WriteAtomic(root, rel, buf, 0o644); err != nil {
		return fmt.Errorf("create log: %w", err)
	}
	return nil
}

// setAside keeps whatever is at rel and is not a log spcstr can extend (a
// foreign document, a folder, a FIFO) under a new name and starts a new log
// at rel with entry.
func setAside(root *os.Root, rel string, entry []byte) error {
	if err := root.Rename(rel, jsonfile.SetAsideName(rel, time.Now())); err != nil {
		return fmt.Errorf("set aside unreadable log: %w", err)
	}
	return create(root, rel, entry)
}

// startsArray reads the head of the file: isArray tells whether its first
// non-space byte is "[". sure is false when the head is only whitespace
// (the slow path then reads the whole file).
func startsArray(f *os.File, size int64) (isArray, sure bool, err error) {
	n := int64(64)
	if n > size {
		n = size
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
		return false, false, fmt.Errorf("read log head: %w", err)
	}
	head := bytes.TrimLeft(buf, " \t\r\n")
	if len(head) == 0 {
		return false, n == size, nil
	}
	return head[0] == '[', true, nil
}

// writeAt writes sep + entry + "\n]\n" at off and cuts anything left beyond
// it (only possible when the old tail was longer, i.e. during a repair).
func writeAt(f *os.File, off, size int64, sep string, entry []byte) error {
	return writeTail(f, off, size, []byte(sep), string(entry)+"\n]\n")
}

// writeTail writes head+tail at off and truncates the file there. If the
// write fails part-way (a full disk, a file-size limit), the bytes it
// overwrote are put back and the file is cut to its old size: the log at
// rest stays what it was.
func writeTail(f *os.File, off, size int64, head []byte, tail string) error {
	buf := make([]byte, 0, len(head)+len(tail))
	buf = append(append(buf, head...), tail...)
	var old []byte
	if off < size {
		old = make([]byte, size-off)
		if _, err := f.ReadAt(old, off); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read log tail: %w", err)
		}
	}
	if _, err := f.WriteAt(buf, off); err != nil {
		if len(old) > 0 {
			_, _ = f.WriteAt(old, off)
		}
		_ = f.Truncate(size)
		return fmt.Errorf("append log (rolled back): %w", err)
	}
	if end := off + int64(len(buf)); end < size {
		if err := f.Truncate(end); err != nil {
			return fmt.Errorf("truncate log: %w", err)
		}
	}
	return nil
}

// findClose locates the closing bracket of an intact array: pos is where
// the next entry's separator goes (just after the last non-space byte before
// "]"), empty tells whether the array has no entries yet.
//
// In spcstr's layout the closing bracket starts a line and follows an
// entry's "}" (or the opening "["), and since entries never hold a raw
// newline a torn append can only end in "}\n]" once its entry is complete:
// checking that costs one small read. Damage beyond a torn last line
// (several lines of garbage) cannot be told apart in constant time. A file whose "]"
// does not start a line (a compact array from another tool, or a torn entry
// that happens to stop right after a "]" inside it) is accepted only if the
// whole file is valid JSON; that read happens once per foreign log, since
// the first append leaves it in spcstr's layout.
func findClose(f *os.File, size int64) (pos int64, empty, ok bool, err error) {
	const chunk = 256
	n := int64(chunk)
	if n > size {
		n = size
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil && !errors.Is(err, io.EOF) {
		return 0, false, false, fmt.Errorf("read log tail: %w", err)
	}
	i := len(buf) - 1
	for i >= 0 && isSpace(buf[i]) {
		i--
	}
	if i < 0 || buf[i] != ']' {
		return 0, false, false, nil
	}
	base := size - n
	if i == 0 || buf[i-1] != '\n' {
		if i == 0 && n < size {
			return 0, false, false, nil // cannot see what precedes: slow path
		}
		return closeOfValidArray(f, size)
	}
	i--
	for i >= 0 && isSpace(buf[i]) {
		i--
	}
	if i < 0 {
		// Only whitespace in the window: unusual; let the slow path decide.
		return 0, false, false, nil
	}
	switch buf[i] {
	case '[':
		return base + int64(i) + 1, true, true, nil
	case '}':
		return base + int64(i) + 1, false, true, nil
	case ',':
		// "...,]" is not valid JSON; treat as torn.
		return 0, false, false, nil
	}
	// Not an entry's end ("]\n]", or another tool's array of non-objects).
	return closeOfValidArray(f, size)
}

// closeOfValidArray is findClose for a file not in spcstr's layout: it
// reads the whole file and accepts it only when it is one valid JSON array.
func closeOfValidArray(f *os.File, size int64) (pos int64, empty, ok bool, err error) {
	data := make([]byte, size)
	if _, err := f.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
		return 0, false, false, fmt.Errorf("read log: %w", err)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) < 2 || trimmed[0] != '[' || !json.Valid(trimmed) {
		return 0, false, false, nil
	}
	body := bytes.TrimRight(data[:bytes.LastIndexByte(data, ']')], " \t\r\n")
	return int64(len(body)), body[len(body)-1] == '[', true, nil
}

// findLastComplete walks back over the lines of a torn log and returns the
// offset just after the last entry line that is complete JSON (or after the
// opening "["). A crash mid-append leaves at most one partial line, so only
// one line may be dropped; anything else means the file is not a log in
// spcstr's format and ok is false (the caller sets it aside). So does a cut
// that would not leave a valid array (damage other than a torn append):
// the repair never produces a file that does not parse.
func findLastComplete(f *os.File, size int64) (cut int64, empty, ok bool, err error) {
	data := make([]byte, size)
	if _, err := f.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
		return 0, false, false, fmt.Errorf("read torn log: %w", err)
	}
	head := bytes.TrimLeft(data, " \t\r\n")
	if len(head) == 0 || head[0] != '[' {
		return 0, false, false, nil
	}
	open := len(data) - len(head) // offset of the opening bracket
	c, empty, ok := lastCompleteLine(data, open)
	if !ok {
		return 0, false, false, nil
	}
	check := make([]byte, 0, c+2)
	check = append(append(check, data[:c]...), "\n]"...)
	if !json.Valid(check) {
		return 0, false, false, nil
	}
	return int64(c), empty, true, nil
}

func lastCompleteLine(data []byte, open int) (cut int, empty, ok bool) {
	dropped := 0
	end := len(data)
	for end > 0 && dropped <= 1 {
		start := bytes.LastIndexByte(data[:end], '\n') + 1
		line := data[start:end]
		lead := len(line) - len(bytes.TrimLeft(line, " \t\r"))
		trimmed := bytes.TrimSpace(line)
		switch {
		case len(trimmed) == 0:
		case start+lead == open && bytes.Equal(trimmed, []byte("[")):
			return start + lead + 1, true, true
		case bytes.Equal(trimmed, []byte("]")):
			// The closing bracket of a repair that was interrupted before
			// it cut the longer torn tail that follows.
		default:
			// An append torn after its first byte leaves "<entry>,]":
			// the entry is complete, only the separator is partial.
			cand := bytes.TrimRight(trimmed, ", \t\r]")
			if len(cand) > 0 && cand[0] == '{' && json.Valid(cand) {
				return start + lead + len(cand), false, true
			}
			dropped++
		}
		if start == 0 {
			break
		}
		end = start - 1
	}
	return 0, false, false
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\r' || b == '\t' }

// rotate moves a full log to the first free <name>.<n>.json.
func rotate(root *os.Root, rel string) error {
	base := strings.TrimSuffix(rel, Ext)
	for n := 1; n < 100000; n++ {
		target := segmentName(base, n)
		if _, err := root.Lstat(target); errors.Is(err, os.ErrNotExist) {
			if err := root.Rename(rel, target); err != nil {
				return fmt.Errorf("rotate log: %w", err)
			}
			return nil
		}
	}
	return errors.New("rotate log: no free name")
}
