package state

import (
	"errors"

	"github.com/mailru/easyjson/jlexer"
	"github.com/mailru/easyjson/jwriter"

	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
)

// state.json is written and read without encoding/json: each hook is a new
// process, and encoding/json builds its codec for Session's types by
// reflection on first use (a cold decode took 0.65–1.2 ms against under
// 0.1 ms warm). The codecs here write what encoding/json writes (maps with
// sorted keys, its number and time formats: codec_test.go holds them to it
// byte for byte) and read it with internal/jsoncodec's member readers. A
// member of another kind than its field is an error, so that a damaged
// file is set aside rather than half read.

// errWrongKind reports a member whose value is not of its field's kind.
var errWrongKind = errors.New("a member of another kind than its field")

// head is a Session without its sections (agents_history, files, errors,
// prompts, notifications), as state.json's first line holds it
// (codec_head.go).
type head struct{ s *Session }

// MarshalEasyJSON writes the head.
func (h head) MarshalEasyJSON(w *jwriter.Writer) { writeHead(w, h.s) }

// UnmarshalEasyJSON reads a head into the session, leaving absent members
// as they are.
func (h head) UnmarshalEasyJSON(l *jlexer.Lexer) {
	if !jsoncodec.Object(l, headNames, h.s.readHeadMember) {
		l.AddError(errWrongKind)
	}
}

// section is one of state.json's long lists (the field p) with its
// entries' codec: read and write one entry; merge, when set, appends
// entries not listed yet (the file lists).
type section[T any] struct {
	p     *[]T
	read  func(*jlexer.Lexer, *T) bool
	write func(*jwriter.Writer, T)
	merge func(dst *[]T, more []T)
}

// MarshalEasyJSON writes the list.
func (s section[T]) MarshalEasyJSON(w *jwriter.Writer) { jsoncodec.WriteList(w, *s.p, s.write) }

// UnmarshalEasyJSON reads the list into the field.
func (s section[T]) UnmarshalEasyJSON(l *jlexer.Lexer) {
	if !jsoncodec.List(l, s.p, s.read) {
		l.AddError(errWrongKind)
	}
}

func (s section[T]) len() int { return len(*s.p) }
func (s section[T]) clear()   { *s.p = nil }

func (s section[T]) fresh() list {
	s.p = new([]T)
	return s
}

func (s section[T]) appendList(m list) {
	more := *m.(section[T]).p
	if s.merge != nil {
		s.merge(s.p, more)
		return
	}
	*s.p = append(*s.p, more...)
}
