package logs

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
)

// TailWindow delivers, oldest first, the complete entries that start in
// the last window bytes of the log at path, and returns the offset to
// follow the log from with Tail. It reads at most window bytes (plus the
// rest of the line the window starts in), whatever the log's size. A
// missing log has no entries.
func TailWindow(path string, window int64, fn func(raw []byte) error) (next int64, err error) {
	start, err := lineStartBefore(path, window)
	if err != nil {
		return 0, err
	}
	next, _, err = Tail(path, start, fn)
	return next, err
}

// lineStartBefore returns the offset of the first line start within the
// last window bytes of the file (0 for a file of at most window bytes).
func lineStartBefore(path string, window int64) (int64, error) {
	f, err := openForRead(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, nil
		}
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if fi.Size() <= window {
		return 0, nil
	}
	buf := make([]byte, 64<<10)
	for pos := fi.Size() - window; pos < fi.Size(); {
		k, err := f.ReadAt(buf, pos)
		if i := bytes.IndexByte(buf[:k], '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
		pos += int64(k)
		if err != nil {
			break
		}
	}
	return fi.Size(), nil
}

// backwardChunk is how much Backward reads at a time.
const backwardChunk = 256 << 10

// Backward delivers the entries of the log at path newest first, reading
// the file from its end in chunks, until fn returns ErrStop (or another
// error, which Backward returns), the start of the file, or maxBytes read
// (checked before each chunk, so up to one chunk more may be read). It is
// the search for a few recent entries in a log of any size: its cost
// depends on how far back they are, not on the log's size. Only entries
// on a line of their own (spcstr's layout) are found; a torn last line is
// skipped. A missing log has no entries.
func Backward(path string, maxBytes int64, fn func(raw []byte) error) error {
	f, err := openForRead(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	end := fi.Size()
	var carry []byte // the start of a line cut by the previous (later) chunk
	read := int64(0)
	for end > 0 && read < maxBytes {
		start := max(end-backwardChunk, 0)
		buf := make([]byte, end-start)
		if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		read += end - start
		buf = append(buf, carry...)
		lines := bytes.Split(buf, []byte{'\n'})
		if start > 0 {
			carry = append([]byte(nil), lines[0]...)
			lines = lines[1:]
		} else {
			carry = nil
		}
		for i := len(lines) - 1; i >= 0; i-- {
			e := lineEntry(lines[i])
			if e == nil {
				continue
			}
			if err := fn(e); err != nil {
				if errors.Is(err, ErrStop) {
					return nil
				}
				return err
			}
		}
		end = start
	}
	return nil
}

// lineEntry returns the entry on one line of a log in spcstr's layout, or
// nil when the line holds none (a bracket, a blank, a torn entry). The
// separator around it is cut off, including the "<entry>,]" an append
// torn after its separator's first byte leaves.
func lineEntry(line []byte) []byte {
	e := bytes.TrimSpace(line)
	e = bytes.TrimSpace(bytes.TrimLeft(e, ","))
	if len(e) == 0 || e[0] != '{' {
		return nil
	}
	e = bytes.TrimRight(e, ", \t\r]")
	if !json.Valid(e) {
		return nil
	}
	return e
}
