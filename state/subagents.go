package state

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mailru/easyjson/jlexer"
	"github.com/mailru/easyjson/jwriter"

	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
)

// The head's subagents member holds a read position per subagent
// transcript. Those of finished agents ("done": true) stay in it for good,
// one per agent the session ran; a hook that does not track an agent
// leaves them encoded (SectionDoneAgents): each is looked at only for its
// done flag and copied back as it was, so that a session's 150 finished
// agents cost a hook next to nothing (bench: P2-long).

// readSubagents reads the subagents member into Subagents, keeping the
// finished agents' members encoded when the update leaves
// SectionDoneAgents so.
func (s *Session) readSubagents(l *jlexer.Lexer) bool {
	if !s.lz.keepDone {
		return jsoncodec.Map(l, &s.Subagents, readSubagent)
	}
	var kept jwriter.Writer
	ok := jsoncodec.EachMember(l, func(key string, l *jlexer.Lexer) bool {
		raw := l.Raw()
		done, valid := doneFlag(raw)
		switch {
		case !valid:
			return false
		case done:
			if kept.Size() > 0 {
				kept.RawByte(',')
			}
			kept.String(key)
			kept.RawByte(':')
			kept.Raw(raw, nil)
			return true
		}
		var a SubagentUsage
		sub := jlexer.Lexer{Data: raw}
		if !readSubagent(&sub, &a) || sub.Error() != nil {
			return false
		}
		if s.Subagents == nil {
			s.Subagents = map[string]SubagentUsage{}
		}
		s.Subagents[strings.Clone(key)] = a
		return true
	})
	if kept.Size() > 0 {
		s.lz.doneAgents, _ = kept.BuildBytes()
	}
	return ok && l.Ok()
}

// doneSuffix ends an agent writeSubagent wrote finished: done is the last
// member it writes.
var doneSuffix = []byte(`"done":true}`)

// doneFlag reads an encoded agent's top-level done member without
// decoding the rest; valid is false when raw is not an object. raw is one
// JSON value (the lexer's): one that ends in doneSuffix has done as its
// last top-level member (a nested one would end in "}}"), which is what
// the decoder keeps; any other is read member by member.
func doneFlag(raw []byte) (done, valid bool) {
	if bytes.HasSuffix(raw, doneSuffix) && len(raw) > len(doneSuffix) {
		if c := raw[len(raw)-len(doneSuffix)-1]; c == ',' || c == '{' {
			return true, true
		}
	}
	l := jlexer.Lexer{Data: raw}
	if !l.IsDelim('{') {
		return false, false
	}
	l.Delim('{')
	for !l.IsDelim('}') && l.Ok() {
		key := l.UnsafeFieldName(false)
		l.WantColon()
		if key == "done" && l.CurrentToken() == jlexer.TokenBool {
			done = l.Bool()
		} else {
			l.SkipRecursive()
		}
		l.WantComma()
	}
	l.Delim('}')
	return done, l.Error() == nil
}

// writeSubagents writes the agents of m as an object, sorted by id, then
// kept, the finished agents' members left encoded, as they were. An id in
// both (an agent added without LoadDoneSubagents: a bug) is written once,
// finished, so that the file never holds an id twice.
func writeSubagents(w *jwriter.Writer, m map[string]SubagentUsage, kept []byte) {
	var finished map[string]bool
	if len(kept) > 0 && len(m) > 0 {
		l := jlexer.Lexer{Data: slices.Concat([]byte("{"), kept, []byte("}"))}
		jsoncodec.EachMember(&l, func(key string, l *jlexer.Lexer) bool {
			if _, dup := m[key]; dup {
				if finished == nil {
					finished = map[string]bool{}
				}
				finished[strings.Clone(key)] = true
			}
			l.SkipRecursive()
			return true
		})
	}
	w.RawByte('{')
	n := 0
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if finished[k] {
			continue
		}
		if n > 0 {
			w.RawByte(',')
		}
		n++
		w.String(k)
		w.RawByte(':')
		writeSubagent(w, m[k])
	}
	if len(kept) > 0 {
		if n > 0 {
			w.RawByte(',')
		}
		w.Raw(kept, nil)
	}
	w.RawByte('}')
}

// LoadDoneSubagents decodes the finished agents an update left encoded
// (SectionDoneAgents) into Subagents. Whatever adds an agent to Subagents
// calls it first, so that a finished agent is never tracked again from
// the start of its transcript (its usage would count twice).
func (s *Session) LoadDoneSubagents() error {
	kept := s.lz.doneAgents
	if kept == nil {
		return nil
	}
	done := map[string]SubagentUsage{}
	l := jlexer.Lexer{Data: slices.Concat([]byte("{"), kept, []byte("}"))}
	if !jsoncodec.Map(&l, &done, readSubagent) || l.Error() != nil {
		err := l.Error()
		if err == nil {
			err = errWrongKind
		}
		return fmt.Errorf("subagents: %w", err) // kept as they were, and written back so
	}
	s.lz.doneAgents = nil
	if s.Subagents == nil {
		s.Subagents = make(map[string]SubagentUsage, len(done))
	}
	for id, a := range done {
		if _, ok := s.Subagents[id]; !ok {
			s.Subagents[id] = a
		}
	}
	return nil
}
