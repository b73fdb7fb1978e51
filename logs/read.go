package logs

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// ErrStop may be returned by a Scan or Tail callback to stop early without
// an error.
var ErrStop = errors.New("stop")

// Scan streams the entries of a log array to fn, one raw JSON value at a
// time, without loading the file whole. It accepts spcstr's one-entry-per-
// line format and any other JSON array layout, and stops quietly at a torn
// tail: everything complete before it is delivered.
func Scan(r io.Reader, fn func(raw []byte) error) error {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return fmt.Errorf("log is not a JSON array: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return errors.New("log is not a JSON array")
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil // torn tail: stop at the last complete entry
		}
		if err := fn(raw); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

// ScanFile is Scan over the file at path. A missing file has no entries.
func ScanFile(path string, fn func(raw []byte) error) error {
	f, err := openForRead(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	defer f.Close()
	return Scan(f, fn)
}

// Tail delivers the entries appended to the log at path since offset (0:
// from the start) and returns the offset to pass next time: just after the
// last complete entry delivered. Appends never change bytes before that
// offset, so following a log costs only its new bytes. When the file has
// become shorter than offset (rotated or replaced), reading restarts at 0
// and reset is true.
func Tail(path string, offset int64, fn func(raw []byte) error) (next int64, reset bool, err error) {
	return TailEntries(path, offset, func(raw []byte, _ int64) error { return fn(raw) })
}

// openForRead opens a log for reading only if it is a regular file: a FIFO or
// device planted in its place is an error, never a read that blocks or
// never ends.
func openForRead(path string) (*os.File, error) {
	f, _, err := safefs.Open(path)
	return f, err
}
