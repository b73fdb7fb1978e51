package logs

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/mailru/easyjson/jlexer"
	"github.com/mailru/easyjson/jwriter"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/termtext"
)

// MaxLogDepth is the deepest nesting of a payload kept as JSON in a log
// line; a part nested deeper is stored as a string (its JSON text, cut like
// any leaf) and marked in Truncated. With the entry's own two levels, every
// line stays far below the limits of jq 1.6 (256 levels) and of Python's
// json module (its recursion limit, 1,000 frames).
const MaxLogDepth = 64

// maxMarks bounds how many cut fields Truncated names one by one; the
// rest are summed under the key "…".
const maxMarks = 32

// smallField is the encoded size up to which a field is kept whole even
// once the payload's budget is spent: ids, paths, commands.
const smallField = 512

// CapPayload returns raw as a single line of valid UTF-8 JSON that keeps
// the payload's structure and every small field (file_path, command, ids)
// and cuts only what is big:
//   - a string leaf whose encoded size exceeds limit keeps its first limit
//     bytes of text and a note of how much was cut (once limit bytes are
//     written, big leaves are cut shorter, to what is left or 1 KiB);
//   - a part nested deeper than MaxLogDepth becomes a string of its JSON
//     text, cut like a leaf;
//   - once four times limit is written, fields over 512 bytes become a
//     note of their size, and array elements past it are dropped (counted
//     in a final note); past eight times limit, every further member is
//     dropped too (counted in a "…" member), so the output stays within
//     about eight times limit whatever the payload's shape;
//   - lone UTF-16 surrogates (\ud800) and invalid UTF-8 become U+FFFD.
//
// The returned map gives, for each field cut, its path (tool_input.content,
// tool_response.content[2].text) and its original encoded size; a payload
// that is not JSON at all is kept as a string, cut whole (key
// WholePayload) when larger than limit.
func CapPayload(raw []byte, limit int) (json.RawMessage, map[string]int) {
	raw = bytes.TrimSpace(raw)
	if limit <= 0 {
		limit = DefaultCap
	}
	size := len(raw)
	if !utf8.Valid(raw) {
		raw = bytes.ToValidUTF8(raw, []byte("\uFFFD"))
	}
	if len(raw) <= limit && plainJSON(raw) {
		// Compact checks the payload as it compacts it: one pass.
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			return buf.Bytes(), nil
		}
	}
	if len(raw) > 0 && (raw[0] == '{' || raw[0] == '[') {
		if out, cut, ok := capTree(raw, limit); ok {
			return out, cut
		}
	}
	// Not JSON: kept as text.
	if len(raw) <= limit {
		b, _ := json.Marshal(string(raw))
		return b, nil
	}
	kept := termtext.Cut(raw, limit)
	b, _ := json.Marshal(string(kept) + "… [" + strconv.Itoa(len(raw)-len(kept)) + " bytes truncated by spcstr]")
	return b, map[string]int{WholePayload: size}
}

// plainJSON reports whether raw can be copied as it is: nested at most
// MaxLogDepth deep and free of \uD800–\uDFFF escapes (which, unpaired,
// strict readers refuse). It is one pass that allocates nothing.
func plainJSON(raw []byte) bool {
	tooDeep, surrogate := hookio.ScanDepth(raw, MaxLogDepth)
	return !tooDeep && !surrogate
}

// capper writes a capped copy of a payload (CapPayload).
type capper struct {
	w     jwriter.Writer
	limit int
	cut   map[string]int
}

func capTree(raw []byte, limit int) (json.RawMessage, map[string]int, bool) {
	c := &capper{limit: limit}
	c.w.NoEscapeHTML = true
	l := &jlexer.Lexer{Data: raw}
	c.value(l, "", 1)
	l.Consumed()
	if l.Error() != nil {
		return nil, nil, false
	}
	out, err := c.w.BuildBytes()
	// The lexer is lenient (raw control bytes in strings): what is
	// written must be JSON all the same. The check is on the capped
	// output, a few times limit at most.
	if err != nil || !json.Valid(out) {
		return nil, nil, false
	}
	return out, c.cut, true
}

func (c *capper) mark(path string, size int) {
	if c.cut == nil {
		c.cut = map[string]int{}
	}
	if path == "" {
		path = WholePayload
	}
	if _, ok := c.cut[path]; !ok && len(c.cut) >= maxMarks {
		path = "…"
	}
	c.cut[path] += size
}

// leafCap is how much of a big string leaf is kept at this point.
func (c *capper) leafCap() int {
	left := c.limit - c.w.Size()
	return min(c.limit, max(left, 1024))
}

func (c *capper) spent() bool { return c.w.Size() > 4*c.limit }

// full is set once eight times limit is written: every further member is
// dropped (counted in one note per object), small or not.
func (c *capper) full() bool { return c.w.Size() > 8*c.limit }

func (c *capper) value(l *jlexer.Lexer, path string, depth int) {
	if !l.Ok() {
		return
	}
	if l.CurrentToken() == jlexer.TokenDelim && depth > MaxLogDepth {
		raw := l.Raw()
		c.mark(path, len(raw))
		c.text(raw, "deeper than "+strconv.Itoa(MaxLogDepth)+" levels, kept as text by spcstr")
		return
	}
	switch {
	case l.IsDelim('{'):
		c.object(l, path, depth)
	case l.IsDelim('['):
		c.array(l, path, depth)
	case l.CurrentToken() == jlexer.TokenString:
		raw := l.Raw()
		c.str(raw, path)
	default:
		raw := l.Raw()
		c.w.Raw(raw, nil)
	}
}

// text writes the start of raw (JSON text) as a string with a note.
func (c *capper) text(raw []byte, note string) {
	s := string(bytes.ToValidUTF8(termtext.Cut(raw, c.leafCap()), []byte("\uFFFD")))
	c.w.String(s + "… [" + strconv.Itoa(len(raw)) + " bytes " + note + "]")
}

// str writes a string leaf given as its raw token.
func (c *capper) str(raw []byte, path string) {
	if len(raw) <= c.limit && plainString(raw) {
		c.w.Raw(raw, nil)
		return
	}
	sub := jlexer.Lexer{Data: raw}
	s := sub.UnsafeString() // unescaped; a lone surrogate becomes U+FFFD
	if len(raw) > c.limit {
		c.mark(path, len(raw))
		s = cut(s, c.leafCap())
	}
	c.w.String(s)
}

func (c *capper) object(l *jlexer.Lexer, path string, depth int) {
	l.Delim('{')
	c.w.RawByte('{')
	first := true
	dropped, droppedBytes := 0, 0
	for l.Ok() && !l.IsDelim('}') {
		key := l.UnsafeFieldName(false)
		l.WantColon()
		if c.full() {
			dropped++
			droppedBytes += len(l.Raw())
			l.WantComma()
			continue
		}
		if !first {
			c.w.RawByte(',')
		}
		first = false
		c.w.String(key)
		c.w.RawByte(':')
		sub := key
		if path != "" {
			sub = path + "." + key
		}
		if c.spent() {
			raw := l.Raw()
			if len(raw) > smallField {
				c.mark(sub, len(raw))
				c.w.String("[" + strconv.Itoa(len(raw)) + " bytes cut by spcstr]")
			} else {
				c.value(&jlexer.Lexer{Data: raw}, sub, depth+1)
			}
		} else {
			c.value(l, sub, depth+1)
		}
		l.WantComma()
	}
	l.Delim('}')
	if dropped > 0 {
		if !first {
			c.w.RawByte(',')
		}
		c.mark(path+".…", droppedBytes)
		c.w.String("…")
		c.w.RawByte(':')
		c.w.String("[" + strconv.Itoa(dropped) + " more members, " + strconv.Itoa(droppedBytes) + " bytes, cut by spcstr]")
	}
	c.w.RawByte('}')
}

func (c *capper) array(l *jlexer.Lexer, path string, depth int) {
	l.Delim('[')
	c.w.RawByte('[')
	i, dropped, droppedBytes := 0, 0, 0
	for l.Ok() && !l.IsDelim(']') {
		if c.spent() {
			dropped++
			droppedBytes += len(l.Raw())
		} else {
			if i > 0 {
				c.w.RawByte(',')
			}
			c.value(l, path+"["+strconv.Itoa(i)+"]", depth+1)
			i++
		}
		l.WantComma()
	}
	l.Delim(']')
	if dropped > 0 {
		if i > 0 {
			c.w.RawByte(',')
		}
		c.mark(path+"[…]", droppedBytes)
		c.w.String("[" + strconv.Itoa(dropped) + " more elements, " + strconv.Itoa(droppedBytes) + " bytes, cut by spcstr]")
	}
	c.w.RawByte(']')
}

// plainString reports whether a raw string token can be copied as it is:
// no escapes and no control bytes.
func plainString(raw []byte) bool {
	for _, c := range raw {
		if c < 0x20 || c == '\\' {
			return false
		}
	}
	return true
}
