package logs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
)

// TailEntries is Tail that also tells fn where each entry ends: end is the
// offset to resume from once that entry is dealt with. A reader that
// commits its progress entry by entry (spcstr otel's cursor) stores end.
// Returning ErrStop from fn stops reading: the
// returned next is end of the last entry fn accepted (the entry that
// returned ErrStop counts as accepted).
func TailEntries(path string, offset int64, fn func(raw []byte, end int64) error) (next int64, reset bool, err error) {
	f, err := openForRead(path)
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
			// Resume right after the entry: the next append rewrites what
			// follows it (",\n" and the closing bracket).
			end := lineStart + int64(lead) + int64(len(cand))
			if err := fn(cand, end); err != nil {
				if errors.Is(err, ErrStop) {
					return end, reset, nil
				}
				return offset, reset, err
			}
			offset = end
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
