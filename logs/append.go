// Package logs owns .spcstr/logs/*.json: which files are logs and what
// they are called (Kind, Name, Classify), how an entry is appended, and
// how logs are read. Each log is one JSON array, at rest always valid,
// appended in constant time whatever its size.
//
// Format: "[\n" + one entry per line, lines joined by ",\n" + "\n]\n". An
// append takes the log's lock, overwrites the closing bracket with
// ",\n<entry>\n]\n", and never reads or rewrites the array. A tail torn by a
// crash is repaired on the next append (the partial line is cut off and kept
// in repairs.json); a file that is not a log at all is set aside, never
// overwritten. A log over its size limit is rotated to <name>.<n>.json.
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
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
)

// Options tunes Append.
type Options struct {
	// MaxBytes rotates the log to <name>.<n>.json once it is larger than
	// this many bytes (0: never).
	MaxBytes int64
	// NoRepairLog disables recording cut-off torn tails in repairs.json
	// (used for repairs.json itself).
	NoRepairLog bool
}

// Append adds one entry (a single JSON value with no raw newlines: use
// json.Marshal or json.Compact) to the log at path.
func Append(ctx context.Context, path string, entry []byte, opt Options) error {
	if len(entry) == 0 || bytes.IndexByte(entry, '\n') >= 0 {
		return errors.New("logs: entry must be one non-empty line of JSON")
	}
	unlock, err := jsonfile.Lock(ctx, path)
	if err != nil {
		return err
	}
	repaired, err := appendLocked(path, entry, opt)
	unlock()
	if err != nil {
		return err
	}
	if len(bytes.Trim(repaired, " \t\r\n,[]")) > 0 && !opt.NoRepairLog {
		rec, _ := json.Marshal(map[string]any{
			"timestamp": time.Now().UTC(),
			"file":      filepath.Base(path),
			"dropped":   strings.ToValidUTF8(string(repaired), "\uFFFD"),
		})
		_ = Append(ctx, filepath.Join(filepath.Dir(path), Name(Repairs, "")+Ext), rec, Options{NoRepairLog: true})
	}
	return nil
}

func appendLocked(path string, entry []byte, opt Options) (dropped []byte, err error) {
	if opt.MaxBytes > 0 {
		if fi, err := os.Stat(path); err == nil && fi.Size() > opt.MaxBytes {
			if err := rotate(path); err != nil {
				return nil, err
			}
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat log: %w", err)
	}
	size := fi.Size()
	if size == 0 {
		return nil, writeAt(f, 0, size, "[\n", entry)
	}
	isArray, sure, err := startsArray(f, size)
	if err != nil {
		return nil, err
	}
	if sure && !isArray {
		return nil, setAside(f, path, entry)
	}
	if sure {
		pos, empty, ok, err := findClose(f, size)
		if err != nil {
			return nil, err
		}
		if ok {
			if empty {
				return nil, writeAt(f, pos, size, "\n", entry)
			}
			return nil, writeAt(f, pos, size, ",\n", entry)
		}
	}
	// Torn tail: find the end of the last complete entry.
	cut, empty, ok, err := findLastComplete(f, size)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, setAside(f, path, entry)
	}
	dropped = make([]byte, size-cut)
	if _, err := f.ReadAt(dropped, cut); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read torn tail: %w", err)
	}
	sep := ",\n"
	if empty {
		sep = "\n"
	}
	return bytes.TrimSpace(dropped), writeAt(f, cut, size, sep, entry)
}

// setAside keeps a file that is not a log spcstr can extend under a new
// name and starts a new log at path with entry.
func setAside(f *os.File, path string, entry []byte) error {
	f.Close()
	if err := os.Rename(path, jsonfile.SetAsideName(path, time.Now())); err != nil {
		return fmt.Errorf("set aside unreadable log: %w", err)
	}
	nf, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("create log: %w", err)
	}
	defer nf.Close()
	return writeAt(nf, 0, 0, "[\n", entry)
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
	buf := make([]byte, 0, len(sep)+len(entry)+3)
	buf = append(buf, sep...)
	buf = append(buf, entry...)
	buf = append(buf, "\n]\n"...)
	if _, err := f.WriteAt(buf, off); err != nil {
		return fmt.Errorf("append log: %w", err)
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
func rotate(path string) error {
	base := strings.TrimSuffix(path, Ext)
	for n := 1; n < 100000; n++ {
		target := segmentName(base, n)
		if _, err := os.Lstat(target); errors.Is(err, os.ErrNotExist) {
			if err := os.Rename(path, target); err != nil {
				return fmt.Errorf("rotate log: %w", err)
			}
			return nil
		}
	}
	return errors.New("rotate log: no free name")
}
