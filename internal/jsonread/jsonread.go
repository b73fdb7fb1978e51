// Package jsonread reads JSON objects member by member with easyjson's
// lexer, under encoding/json's rules but without its reflection: each hook
// is a new process, and encoding/json builds its decoder for a struct by
// reflection on first use, which cost a hook more than the decoding itself.
// The caller names the fields and stores each member's value with the
// readers here. The rules (hookio's differential test holds them to
// encoding/json's):
//   - a member sets the field of its exact name, else the first field whose
//     name matches it case-insensitively; a later member wins;
//   - a value of another JSON type leaves the field as it was (as
//     encoding/json's UnmarshalTypeError does), and so does null, except
//     that null makes a pointer or a slice nil and a raw field keeps "null";
//   - any other value gives a nil pointer field its zero value first, even
//     one of the wrong type ("success":"yes" reads as false);
//   - unknown members are skipped.
//
// The input must be valid JSON (callers check it with json.Valid first),
// so the lexer never meets a syntax error.
package jsonread

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mailru/easyjson/jlexer"
)

// Object reads the JSON object at l, handing each member to set by the name
// of the field it belongs to (names lists the fields' JSON names, for the
// case-insensitive match). A value that is not an object is skipped and
// reported false, null is skipped and reported true; otherwise it reports
// whether every set did (false: a member of another kind than its field).
func Object(l *jlexer.Lexer, names []string, set func(name string, l *jlexer.Lexer) bool) bool {
	switch l.CurrentToken() {
	case jlexer.TokenNull:
		l.Skip()
		return true
	case jlexer.TokenDelim:
	default:
		l.SkipRecursive()
		return false
	}
	if !l.IsDelim('{') {
		l.SkipRecursive()
		return false
	}
	l.Delim('{')
	ok := true
	for !l.IsDelim('}') && l.Ok() {
		key := l.UnsafeFieldName(false)
		l.WantColon()
		if name, found := fieldName(names, key); found {
			ok = set(name, l) && ok
		} else {
			l.SkipRecursive()
		}
		l.WantComma()
	}
	l.Delim('}')
	return ok
}

// fieldName returns the field name key belongs to: its exact match, else
// the first case-insensitive one.
func fieldName(names []string, key string) (string, bool) {
	for _, n := range names {
		if n == key {
			return n, true
		}
	}
	for _, n := range names {
		if strings.EqualFold(n, key) {
			return n, true
		}
	}
	return "", false
}

// The value readers below store a value of their kind and skip any other;
// each reports false for a value of another kind (encoding/json's
// UnmarshalTypeError), true for its own kind or null.

// String reads a string.
func String(l *jlexer.Lexer, p *string) bool {
	switch l.CurrentToken() {
	case jlexer.TokenString:
		*p = l.String()
		return true
	case jlexer.TokenNull:
		l.Skip()
		return true
	}
	l.SkipRecursive()
	return false
}

// StringPtr reads a string through a pointer (null: nil).
func StringPtr(l *jlexer.Lexer, p **string) bool {
	if l.CurrentToken() == jlexer.TokenNull {
		l.Skip()
		*p = nil
		return true
	}
	if *p == nil {
		*p = new(string)
	}
	return String(l, *p)
}

// Bool reads a boolean.
func Bool(l *jlexer.Lexer, p *bool) bool {
	switch l.CurrentToken() {
	case jlexer.TokenBool:
		*p = l.Bool()
		return true
	case jlexer.TokenNull:
		l.Skip()
		return true
	}
	l.SkipRecursive()
	return false
}

// BoolPtr reads a boolean through a pointer (null: nil).
func BoolPtr(l *jlexer.Lexer, p **bool) bool {
	if l.CurrentToken() == jlexer.TokenNull {
		l.Skip()
		*p = nil
		return true
	}
	if *p == nil {
		*p = new(bool)
	}
	return Bool(l, *p)
}

// number returns the literal of a number token (ok false, value skipped,
// for any other kind; null gives "" and true).
func number(l *jlexer.Lexer) (lit string, ok bool) {
	switch l.CurrentToken() {
	case jlexer.TokenNumber:
		return string(l.Raw()), true
	case jlexer.TokenNull:
		l.Skip()
		return "", true
	}
	l.SkipRecursive()
	return "", false
}

// Float reads a number as a float64 (one out of range is a mismatch).
func Float(l *jlexer.Lexer, p *float64) bool {
	lit, ok := number(l)
	if !ok || lit == "" {
		return ok
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return false
	}
	*p = f
	return true
}

// Int reads an integer (a fraction or one out of range is a mismatch).
func Int(l *jlexer.Lexer, p *int64) bool {
	lit, ok := number(l)
	if !ok || lit == "" {
		return ok
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	if err != nil {
		return false
	}
	*p = n
	return true
}

// Raw keeps the value's bytes as they are (null included), copied.
func Raw(l *jlexer.Lexer, p *json.RawMessage) bool {
	*p = append(json.RawMessage(nil), l.Raw()...)
	return true
}

// List reads a JSON array into *p, one element per entry, each read by
// elem; null makes the list nil, any other value leaves it as it was. It
// reports false when the value or an element is of another kind.
func List[T any](l *jlexer.Lexer, p *[]T, elem func(*jlexer.Lexer, *T) bool) bool {
	switch l.CurrentToken() {
	case jlexer.TokenNull:
		l.Skip()
		*p = nil
		return true
	case jlexer.TokenDelim:
		if l.IsDelim('[') {
			break
		}
		fallthrough
	default:
		l.SkipRecursive()
		return false
	}
	l.Delim('[')
	list, ok := []T{}, true
	for !l.IsDelim(']') && l.Ok() {
		var v T
		ok = elem(l, &v) && ok
		list = append(list, v)
		l.WantComma()
	}
	l.Delim(']')
	*p = list
	return ok
}

// Members reads data (one JSON value) member by member (see Object); it
// reports false when data is not an object or a member's value is of
// another kind than its reader's.
func Members(data []byte, names []string, set func(name string, l *jlexer.Lexer) bool) bool {
	l := jlexer.Lexer{Data: data}
	ok := Object(&l, names, set)
	return ok && l.Ok()
}
