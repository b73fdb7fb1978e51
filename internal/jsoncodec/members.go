package jsoncodec

// Members: reading JSON objects member by member with easyjson's lexer,
// under encoding/json's rules but without its reflection. The caller
// names the fields and stores each member's value with the readers here.
// The rules (hookio's and transcript's differential tests hold them to
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
// Readers of others' JSON check it with json.Valid first, so that exactly
// what encoding/json accepts is accepted. Input that is not valid JSON
// otherwise ends the read with the lexer's error (Members and Unmarshal
// report it).

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/mailru/easyjson/jlexer"
)

// Object reads the JSON object at l, handing each member to set by the name
// of the field it belongs to (names lists the fields' JSON names, for the
// case-insensitive match). A value that is not an object is skipped and
// reported false, null is skipped and reported true; otherwise it reports
// whether every set did (false: a member of another kind than its field).
func Object(l *jlexer.Lexer, names []string, set func(name string, l *jlexer.Lexer) bool) bool {
	return EachMember(l, func(key string, l *jlexer.Lexer) bool {
		if name, found := fieldName(names, key); found {
			return set(name, l)
		}
		l.SkipRecursive()
		return true
	})
}

// EachMember reads the JSON object at l, handing each member's key (valid
// only during the call) to visit, which reads or skips its value. A value
// that is not an object is skipped and reported false, null is skipped and
// reported true; otherwise it reports whether every visit did.
func EachMember(l *jlexer.Lexer, visit func(key string, l *jlexer.Lexer) bool) bool {
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
		ok = visit(key, l) && ok
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
	return token(l, jlexer.TokenString, p, (*jlexer.Lexer).String)
}

// Bool reads a boolean.
func Bool(l *jlexer.Lexer, p *bool) bool {
	return token(l, jlexer.TokenBool, p, (*jlexer.Lexer).Bool)
}

// token stores a value of kind read by get, skips null and reports any
// other kind.
func token[T any](l *jlexer.Lexer, kind jlexer.TokenKind, p *T, get func(*jlexer.Lexer) T) bool {
	switch l.CurrentToken() {
	case kind:
		*p = get(l)
		return true
	case jlexer.TokenNull:
		l.Skip()
		return true
	}
	l.SkipRecursive()
	return false
}

// StringPtr reads a string through a pointer (null: nil).
func StringPtr(l *jlexer.Lexer, p **string) bool { return Ptr(l, p, String) }

// BoolPtr reads a boolean through a pointer (null: nil).
func BoolPtr(l *jlexer.Lexer, p **bool) bool { return Ptr(l, p, Bool) }

// Ptr reads a value through a pointer with read: null makes it nil, any
// other value gives a nil pointer its zero value first (as encoding/json
// does, even for a value of another kind).
func Ptr[T any](l *jlexer.Lexer, p **T, read func(*jlexer.Lexer, *T) bool) bool {
	if l.CurrentToken() == jlexer.TokenNull {
		l.Skip()
		*p = nil
		return true
	}
	if *p == nil {
		*p = new(T)
	}
	return read(l, *p)
}

// Time reads a time in RFC 3339, as time.Time's UnmarshalJSON does; a
// string that is not one is a mismatch.
func Time(l *jlexer.Lexer, p *time.Time) bool {
	switch l.CurrentToken() {
	case jlexer.TokenString:
		return p.UnmarshalJSON(l.Raw()) == nil
	case jlexer.TokenNull:
		l.Skip()
		return true
	}
	l.SkipRecursive()
	return false
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
func Int[T ~int | ~int64](l *jlexer.Lexer, p *T) bool {
	lit, ok := number(l)
	if !ok || lit == "" {
		return ok
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	if err != nil || int64(T(n)) != n {
		return false
	}
	*p = T(n)
	return true
}

// Any reads any value as encoding/json reads it into an interface
// (numbers as float64, objects as map[string]any).
func Any(l *jlexer.Lexer, p *any) bool {
	*p = l.Interface()
	return l.Ok()
}

// Raw keeps the value's bytes as they are (null included), copied.
func Raw(l *jlexer.Lexer, p *json.RawMessage) bool {
	*p = append(json.RawMessage(nil), l.Raw()...)
	return true
}

// RawView is Raw without the copy: *p shares the lexer's input (capacity
// clipped, so an append never writes into it). For a caller that keeps the
// input anyway, it saves a copy of every large value.
func RawView(l *jlexer.Lexer, p *json.RawMessage) bool {
	v := l.Raw()
	*p = v[:len(v):len(v)]
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

// Map reads a JSON object with any member names into *p, each value read
// by elem into a new value; null makes the map nil, any other value leaves
// it as it was. It reports false when the value or a member is of another
// kind.
func Map[V any](l *jlexer.Lexer, p *map[string]V, elem func(*jlexer.Lexer, *V) bool) bool {
	switch l.CurrentToken() {
	case jlexer.TokenNull:
		l.Skip()
		*p = nil
		return true
	case jlexer.TokenDelim:
		if l.IsDelim('{') {
			break
		}
		fallthrough
	default:
		l.SkipRecursive()
		return false
	}
	l.Delim('{')
	if *p == nil {
		*p = map[string]V{}
	}
	ok := true
	for !l.IsDelim('}') && l.Ok() {
		key := strings.Clone(l.UnsafeFieldName(false))
		l.WantColon()
		var v V
		ok = elem(l, &v) && ok
		(*p)[key] = v
		l.WantComma()
	}
	l.Delim('}')
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
