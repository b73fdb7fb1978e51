package logs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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
	f, err := os.Open(path)
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
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, offset > 0, nil
		}
		return offset, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return offset, false, err
	}
	if fi.Size() < offset {
		offset, reset = 0, true
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return offset, reset, err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	pos := offset
	for {
		line, rerr := br.ReadBytes('\n')
		complete := rerr == nil
		lineStart := pos
		pos += int64(len(line))
		trimmed := bytes.TrimSpace(line)
		lead := len(line) - len(bytes.TrimLeft(line, " \t\r\n,"))
		trimmed = bytes.TrimLeft(trimmed, ",")
		trimmed = bytes.TrimSpace(trimmed)
		cand := trimmed
		if len(cand) > 0 && cand[0] == '{' {
			// "<entry>,]" is a complete entry whose append was torn
			// after its separator's first byte.
			cand = bytes.TrimRight(cand, ", \t\r]")
		}
		switch {
		case len(cand) == 0, bytes.Equal(cand, []byte("[")), bytes.Equal(cand, []byte("]")):
			if complete && !bytes.Equal(cand, []byte("]")) {
				offset = pos
			}
		case cand[0] == '{' && json.Valid(cand):
			if err := fn(cand); err != nil {
				if errors.Is(err, ErrStop) {
					return lineStart + int64(lead) + int64(len(cand)), reset, nil
				}
				return offset, reset, err
			}
			// Resume right after the entry: the next append rewrites what
			// follows it (",\n" and the closing bracket).
			offset = lineStart + int64(lead) + int64(len(cand))
		default:
			if !complete {
				return offset, reset, nil // partial line being written
			}
		}
		if rerr != nil {
			if errors.Is(rerr, io.EOF) {
				return offset, reset, nil
			}
			return offset, reset, rerr
		}
	}
}
