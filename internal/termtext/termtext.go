// Package termtext owns what untrusted text may do to a terminal: nothing.
// Text that reaches a human's terminal (export on stdout, req, doctor, the
// dashboard's window title) can come from a committed file or from tool
// output the model read, so every program passes it through this package
// once, at its output boundary. Writer (and Strip) remove escape sequences
// (CSI, OSC, DCS, SOS, PM, APC, in their 7-bit ESC form and their 8-bit C1
// form), every other C0 and C1 control except newline and tab, and DEL;
// invalid UTF-8 becomes U+FFFD. EscapeJSON makes JSON output safe to print
// without changing what it decodes to.
package termtext

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// Strip returns s without escape sequences or control characters (newline
// and tab are kept).
func Strip(s string) string {
	var b bytes.Buffer
	w := NewWriter(&b)
	_, _ = io.WriteString(w, s)
	_ = w.Flush()
	return b.String()
}

// Line is Strip for a one-line context (a window title, a table cell):
// newlines and tabs become spaces too.
func Line(s string) string {
	s = Strip(s)
	return string(bytes.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, []byte(s)))
}

type mode uint8

const (
	ground   mode = iota
	esc           // after ESC
	escInter      // ESC followed by intermediate bytes
	csi           // in a control sequence, until its final byte
	str           // in a string (OSC, DCS, SOS, PM, APC), until BEL or ST
	strEsc        // in a string, after ESC
)

// Writer strips escape sequences and controls from everything written to
// it. Sequences split across writes are handled; call Flush at the end to
// write out a trailing incomplete UTF-8 sequence (as U+FFFD).
type Writer struct {
	w       io.Writer
	mode    mode
	pending []byte // an incomplete UTF-8 sequence
	out     []byte
}

// NewWriter returns a Writer that writes clean text to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write cleans p and writes the result. It reports len(p) on success.
func (t *Writer) Write(p []byte) (int, error) {
	t.out = t.out[:0]
	in := p
	if len(t.pending) > 0 {
		in = append(append([]byte(nil), t.pending...), p...)
		t.pending = t.pending[:0]
	}
	for i := 0; i < len(in); {
		c := in[i]
		if c < utf8.RuneSelf {
			t.byte7(c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		if r == utf8.RuneError && n == 1 {
			if !utf8.FullRune(in[i:]) {
				t.pending = append(t.pending, in[i:]...)
				break
			}
			// A raw byte that is not UTF-8: 0x80–0x9F is an 8-bit C1
			// control to some terminals.
			if c >= 0x80 && c <= 0x9f {
				t.c1(rune(c))
			} else if t.mode == ground {
				t.out = append(t.out, "\uFFFD"...)
			}
			i++
			continue
		}
		if r >= 0x80 && r <= 0x9f {
			t.c1(r)
		} else if t.mode == ground {
			t.out = append(t.out, in[i:i+n]...)
		} else if t.mode != str && t.mode != strEsc {
			// Not part of a sequence: the sequence was malformed. Drop
			// it and keep the text.
			t.mode = ground
			t.out = append(t.out, in[i:i+n]...)
		}
		i += n
	}
	if len(t.out) > 0 {
		if _, err := t.w.Write(t.out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes a trailing incomplete UTF-8 sequence as U+FFFD.
func (t *Writer) Flush() error {
	if len(t.pending) == 0 {
		return nil
	}
	t.pending = t.pending[:0]
	if t.mode != ground {
		return nil
	}
	_, err := io.WriteString(t.w, "\uFFFD")
	return err
}

func (t *Writer) byte7(c byte) {
	switch t.mode {
	case ground:
		switch {
		case c == 0x1b:
			t.mode = esc
		case c == '\n' || c == '\t':
			t.out = append(t.out, c)
		case c < 0x20 || c == 0x7f:
			// dropped: BEL, BS, CR, …
		default:
			t.out = append(t.out, c)
		}
	case esc:
		switch {
		case c == '[':
			t.mode = csi
		case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
			t.mode = str
		case c >= 0x20 && c <= 0x2f:
			t.mode = escInter
		case c == 0x1b:
		case c < 0x20:
			t.mode = ground
			t.byte7(c)
		default:
			t.mode = ground // a two-byte sequence: both dropped
		}
	case escInter:
		switch {
		case c >= 0x20 && c <= 0x2f:
		case c < 0x20:
			t.mode = ground
			t.byte7(c)
		default:
			t.mode = ground
		}
	case csi:
		switch {
		case c >= 0x40 && c <= 0x7e:
			t.mode = ground
		case c >= 0x20:
		case c == 0x1b:
			t.mode = esc
		case c == '\n':
			t.mode = ground
			t.out = append(t.out, c)
		}
	case str:
		switch c {
		case 0x07:
			t.mode = ground
		case 0x1b:
			t.mode = strEsc
		case '\n':
			// A string is never allowed to swallow the rest of the
			// output: a newline ends it (and is kept).
			t.mode = ground
			t.out = append(t.out, c)
		}
	case strEsc:
		if c == '\\' {
			t.mode = ground
			return
		}
		t.mode = str
		t.byte7(c)
	}
}

func (t *Writer) c1(r rune) {
	switch r {
	case 0x9b: // CSI
		t.mode = csi
	case 0x9d, 0x90, 0x98, 0x9e, 0x9f: // OSC, DCS, SOS, PM, APC
		t.mode = str
	case 0x9c: // ST
		if t.mode == str || t.mode == strEsc {
			t.mode = ground
		}
	default:
		// Other C1 controls are dropped; inside a string they are part
		// of it.
	}
}

// EscapeJSON rewrites JSON text so that it is safe to print: the C1
// controls U+0080–U+009F (which encoding/json leaves raw inside strings)
// become \u0080…\u009f escapes, and any raw control byte left outside
// strings is dropped. The document decodes to the same value.
func EscapeJSON(data []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == 0xc2 && i+1 < len(data) && data[i+1] >= 0x80 && data[i+1] <= 0x9f:
			out = append(out, data[last:i]...)
			out = append(out, '\\', 'u', '0', '0', hex[data[i+1]>>4], hex[data[i+1]&0xf])
			i++
			last = i + 1
		case c >= 0x80 && c <= 0x9f && !continuation(data, i):
			// A raw 8-bit C1 byte (invalid UTF-8).
			out = append(out, data[last:i]...)
			out = append(out, "\\ufffd"...)
			last = i + 1
		case c < 0x20 && c != '\n' && c != '\t' && c != '\r':
			out = append(out, data[last:i]...)
			last = i + 1
		}
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

const hex = "0123456789abcdef"

// continuation reports whether data[i] continues a valid multi-byte UTF-8
// sequence that starts before it.
func continuation(data []byte, i int) bool {
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		if utf8.RuneStart(data[j]) {
			r, n := utf8.DecodeRune(data[j:])
			return r != utf8.RuneError && j+n > i
		}
	}
	return false
}

// JSONWriter returns a writer that applies EscapeJSON to each write. Each
// write must hold whole JSON text (as json.Encoder and a buffered document
// do), so that no character is split between writes.
func JSONWriter(w io.Writer) io.Writer { return jsonWriter{w} }

type jsonWriter struct{ w io.Writer }

func (j jsonWriter) Write(p []byte) (int, error) {
	if _, err := j.w.Write(EscapeJSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Cut shortens s to at most n bytes without splitting a UTF-8 sequence:
// the one cut of text on a rune boundary (a log's capped field, a
// message's quoted id, a snippet). It never adds a mark of its own.
func Cut[T ~string | ~[]byte](s T, n int) T {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
