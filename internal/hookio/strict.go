package hookio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// MaxDepth is the deepest nesting of arrays and objects a payload may have.
// Deeper documents are rejected so that every log stays readable by tools
// with a recursion limit (Python's json module, jq).
const MaxDepth = 256

// ErrTooDeep is returned by Decode for a payload nested deeper than MaxDepth.
var ErrTooDeep = errors.New("payload nested deeper than " + strconv.Itoa(MaxDepth) + " levels")

// checkDepth fails when data's arrays and objects nest deeper than MaxDepth.
func checkDepth(data []byte) error {
	if tooDeep, _ := ScanDepth(data, MaxDepth); tooDeep {
		return ErrTooDeep
	}
	return nil
}

// ScanDepth is the one depth scanner of JSON text (a payload's MaxDepth, a
// log's shallower limit): one pass over data that allocates nothing,
// strings skipped. tooDeep reports arrays and objects nested deeper than
// limit (the scan stops there); surrogate reports a \uD800–\uDFFF escape
// in a string seen before that (unpaired, strict readers refuse it).
func ScanDepth(data []byte, limit int) (tooDeep, surrogate bool) {
	_, tooDeep, surrogate = scanNesting(data, limit, false)
	return tooDeep, surrogate
}

// ValueEnd returns the offset just after the object or array data starts
// with, found by its brackets (strings skipped, nothing else checked), or
// -1 when it does not close. It is ScanDepth's scan, stopped at the end of
// the first value.
func ValueEnd(data []byte) int {
	end, _, _ := scanNesting(data, math.MaxInt, true)
	return end
}

func scanNesting(data []byte, limit int, first bool) (end int, tooDeep, surrogate bool) {
	depth, inString, escaped := 0, false, false
	for i, c := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
				if c == 'u' && i+2 < len(data) && (data[i+1] == 'd' || data[i+1] == 'D') {
					switch data[i+2] {
					case '8', '9', 'a', 'b', 'c', 'd', 'e', 'f', 'A', 'B', 'C', 'D', 'E', 'F':
						surrogate = true
					}
				}
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > limit {
				return -1, true, surrogate
			}
		case '}', ']':
			depth--
			if first && depth == 0 {
				return i + 1, false, surrogate
			}
		}
	}
	return -1, false, surrogate
}

// exactKeys are the fields whose value decides where an event is recorded.
// encoding/json matches keys case-insensitively and lets the last match
// win; Claude Code matches exactly, so for these the first exactly named
// key is used, and a case variant ("SESSION_ID") only when there is no
// exact one.
var exactKeys = []string{"session_id", "hook_event_name", "cwd", "transcript_path"}

// fixKeys resolves duplicate and case-variant keys of exactKeys the exact
// way. It costs one scan of the payload unless such keys are present.
func fixKeys(data []byte, ev *Event) {
	suspect := false
	for _, k := range exactKeys {
		if countFold(data, k) > 1 {
			suspect = true
			break
		}
	}
	if !suspect {
		return
	}
	exact := map[string]json.RawMessage{}  // first exactly named key
	folded := map[string]json.RawMessage{} // first key equal up to case
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return
		}
		for _, k := range exactKeys {
			if key == k {
				if _, seen := exact[k]; !seen {
					exact[k] = raw
				}
			} else if strings.EqualFold(key, k) {
				if _, seen := folded[k]; !seen {
					folded[k] = raw
				}
			}
		}
	}
	str := func(k string) string {
		raw, ok := exact[k]
		if !ok {
			raw = folded[k]
		}
		var s string
		if raw != nil && json.Unmarshal(raw, &s) == nil {
			return s
		}
		return ""
	}
	ev.SessionID = str("session_id")
	ev.HookEventName = str("hook_event_name")
	ev.Cwd = str("cwd")
	ev.TranscriptPath = str("transcript_path")
}

// countFold counts the occurrences of `"key"` in data, ignoring case.
func countFold(data []byte, key string) int {
	n := 0
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return n
		}
		i += j + 1
		if end := i + len(key); end < len(data) && data[end] == '"' && bytes.EqualFold(data[i:end], []byte(key)) {
			n++
		}
	}
}

// StdinTimeout bounds how long the recorder waits for stdin to be closed.
// Claude Code writes the payload and closes stdin at once; a stdin that
// stays open must not hold the hook (and its session lock) for ever.
const StdinTimeout = 5 * time.Second

// ErrStdinTimeout is returned by ReadPayload when stdin was not closed in time.
var ErrStdinTimeout = errors.New("stdin not closed in time")

// ReadPayload reads a hook payload from r, at most MaxPayloadBytes+1
// bytes. If r has not ended after timeout (a stdin nobody closes), it
// returns what arrived so far with ErrStdinTimeout; the read left waiting
// ends with the process.
func ReadPayload(r io.Reader, timeout time.Duration) ([]byte, error) {
	if timeout <= 0 {
		return io.ReadAll(io.LimitReader(r, MaxPayloadBytes+1))
	}
	if f, isFile := r.(*os.File); isFile {
		if data, ok, err := readFileDeadline(f, MaxPayloadBytes+1, time.Now().Add(timeout), timeout); ok {
			return data, err
		}
	}
	type chunk struct {
		b   []byte
		err error
	}
	ch := make(chan chunk, 4)
	go func() {
		lr := io.LimitReader(r, MaxPayloadBytes+1)
		size := 64 << 10
		for {
			b := make([]byte, size)
			n, err := lr.Read(b)
			ch <- chunk{b[:n], err}
			if err != nil {
				return
			}
			if size < 4<<20 {
				size *= 2
			}
		}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var data chunks
	for {
		select {
		case c := <-ch:
			data.full = append(data.full, c.b)
			data.n += int64(len(c.b))
			if errors.Is(c.err, io.EOF) {
				return data.join(nil), nil
			}
			if c.err != nil {
				return data.join(nil), c.err
			}
		case <-timer.C:
			return data.join(nil), fmt.Errorf("%w (%v)", ErrStdinTimeout, timeout)
		}
	}
}

// chunks collects a read too large for its first buffer: full buffers are
// kept as they are and joined once, so the data is copied once.
type chunks struct {
	full [][]byte
	n    int64 // bytes in full
}

// next keeps the full buffer buf and returns an empty one, twice as large
// (up to 8 MiB).
func (c *chunks) next(buf []byte) []byte {
	c.full = append(c.full, buf)
	c.n += int64(len(buf))
	return make([]byte, 0, min(2*cap(buf), 8<<20))
}

// join returns the kept buffers and last, in order, as one slice.
func (c *chunks) join(last []byte) []byte {
	if len(c.full) == 0 {
		return last
	}
	out := make([]byte, 0, c.n+int64(len(last)))
	for _, b := range c.full {
		out = append(out, b...)
	}
	c.full = nil
	return append(out, last...)
}
