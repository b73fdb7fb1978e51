package claudesettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// This file is the small ordered-JSON layer under Document, and why it is
// hand-written: users keep settings.json in git and diff it, so an edit must
// keep key order and leave every part spcstr did not touch byte for byte.
// encoding/json's map round trip loses the order and reformats everything;
// encoding/json/jsontext (which could do this) still needs
// GOEXPERIMENT=jsonv2 in Go 1.26; ordered-map libraries re-emit the whole
// document in their own layout; path-based editors (tidwall/sjson) splice
// compact text into an indented file. A tree whose nodes remember their
// original bytes, re-encoding only the containers that changed in the
// file's own indentation, is about 250 lines with no dependency.

type kind uint8

const (
	kindScalar kind = iota // string, number, true, false, null
	kindObject
	kindArray
)

// node is one JSON value. raw holds its original text; a node that was built
// or changed has raw == nil and is re-encoded, while its untouched children
// keep their original text (and so their formatting) verbatim.
type node struct {
	kind    kind
	raw     []byte
	members []member // kindObject, in file order
	items   []*node  // kindArray
}

// member is one key/value pair of an object.
type member struct {
	key    string // decoded
	rawKey []byte // as written, quotes included
	val    *node
}

// ErrSyntax marks a document that is not valid JSON.
var ErrSyntax = errors.New("not valid JSON")

// parseTree parses one JSON document. Whitespace around the top-level value
// is allowed; anything else is an error that names the line and column.
func parseTree(data []byte) (*node, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, se.Offset)
			return nil, fmt.Errorf("%w: line %d, column %d: %s", ErrSyntax, line, col, se.Error())
		}
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	p := &parser{data: data}
	p.space()
	return p.value(), nil
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	if col < 1 {
		col = 1
	}
	return line, col
}

// parser walks a document that json.Valid accepted, so it need not report
// errors.
type parser struct {
	data []byte
	i    int
}

func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value() *node {
	start := p.i
	n := &node{}
	switch p.data[p.i] {
	case '{':
		n.kind = kindObject
		p.i++
		p.space()
		for p.data[p.i] != '}' {
			ks := p.i
			p.str()
			rawKey := p.data[ks:p.i]
			var key string
			_ = json.Unmarshal(rawKey, &key)
			p.space()
			p.i++ // ':'
			p.space()
			n.members = append(n.members, member{key: key, rawKey: rawKey, val: p.value()})
			p.space()
			if p.data[p.i] == ',' {
				p.i++
				p.space()
			}
		}
		p.i++
	case '[':
		n.kind = kindArray
		p.i++
		p.space()
		for p.data[p.i] != ']' {
			n.items = append(n.items, p.value())
			p.space()
			if p.data[p.i] == ',' {
				p.i++
				p.space()
			}
		}
		p.i++
	case '"':
		p.str()
	default:
		for p.i < len(p.data) {
			c := p.data[p.i]
			if c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\r' || c == '\n' {
				break
			}
			p.i++
		}
	}
	n.raw = p.data[start:p.i]
	return n
}

// str skips one string literal, escapes included.
func (p *parser) str() {
	p.i++ // opening quote
	for p.data[p.i] != '"' {
		if p.data[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	p.i++
}

// style is how a file lays out its containers.
type style struct {
	indent  string // one level, e.g. "  " or "\t"
	newline string // "\n" or "\r\n"
}

// detectStyle finds the indentation of the first indented line and the
// newline convention; a new or one-line file gets two spaces and "\n", the
// way Claude Code writes settings.json.
func detectStyle(data []byte) style {
	st := style{indent: "  ", newline: "\n"}
	if bytes.Contains(data, []byte("\r\n")) {
		st.newline = "\r\n"
	}
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		line = bytes.TrimRight(line, "\r")
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == 0 || len(trimmed) == len(line) {
			continue
		}
		st.indent = string(line[:len(line)-len(trimmed)])
		break
	}
	return st
}

// encode appends n to buf. Nodes that kept their raw text are copied as they
// were; changed containers are laid out one element per line at depth.
func (n *node) encode(buf *bytes.Buffer, st style, depth int) {
	if n.raw != nil {
		buf.Write(n.raw)
		return
	}
	switch n.kind {
	case kindObject:
		if len(n.members) == 0 {
			buf.WriteString("{}")
			return
		}
		buf.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeIndent(buf, st, depth+1)
			buf.Write(m.rawKey)
			buf.WriteString(": ")
			m.val.encode(buf, st, depth+1)
		}
		writeIndent(buf, st, depth)
		buf.WriteByte('}')
	case kindArray:
		if len(n.items) == 0 {
			buf.WriteString("[]")
			return
		}
		buf.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeIndent(buf, st, depth+1)
			it.encode(buf, st, depth+1)
		}
		writeIndent(buf, st, depth)
		buf.WriteByte(']')
	default:
		// A scalar always has raw text (newString and friends set it).
		buf.WriteString("null")
	}
}

func writeIndent(buf *bytes.Buffer, st style, depth int) {
	buf.WriteString(st.newline)
	for range depth {
		buf.WriteString(st.indent)
	}
}

// get returns the value of key in an object, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kindObject {
		return nil
	}
	for _, m := range n.members {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// set replaces the value of key, or appends key at the end of the object.
func (n *node) set(key string, v *node) {
	n.raw = nil
	for i := range n.members {
		if n.members[i].key == key {
			n.members[i].val = v
			return
		}
	}
	n.members = append(n.members, member{key: key, rawKey: quote(key), val: v})
}

// remove deletes key from an object.
func (n *node) remove(key string) {
	for i := range n.members {
		if n.members[i].key == key {
			n.members = append(n.members[:i:i], n.members[i+1:]...)
			n.raw = nil
			return
		}
	}
}

// str returns a string scalar's value; ok is false for anything else.
func (n *node) str() (s string, ok bool) {
	if n == nil || n.kind != kindScalar || len(n.raw) == 0 || n.raw[0] != '"' {
		return "", false
	}
	if err := json.Unmarshal(n.raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// boolean returns a true/false scalar's value; ok is false for anything else.
func (n *node) boolean() (v, ok bool) {
	if n == nil || n.kind != kindScalar {
		return false, false
	}
	switch string(n.raw) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// strings returns the string items of an array (non-strings are skipped).
func (n *node) strings() []string {
	if n == nil || n.kind != kindArray {
		return nil
	}
	out := make([]string, 0, len(n.items))
	for _, it := range n.items {
		if s, ok := it.str(); ok {
			out = append(out, s)
		}
	}
	return out
}

func newString(s string) *node { return &node{kind: kindScalar, raw: quote(s)} }

func newNumber(n int) *node { return &node{kind: kindScalar, raw: []byte(strconv.Itoa(n))} }

func newObject(members ...member) *node { return &node{kind: kindObject, members: members} }

func newArray(items ...*node) *node { return &node{kind: kindArray, items: items} }

func field(key string, v *node) member { return member{key: key, rawKey: quote(key), val: v} }

// quote encodes s as a JSON string without HTML escaping, as Claude Code
// (JSON.stringify) would write it.
func quote(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return []byte(strconv.Quote(s))
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}
