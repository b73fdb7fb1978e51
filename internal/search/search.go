// Package search owns finding sessions by what happened in them (spcstr
// search): it streams a project's event logs and reports each entry whose
// payload holds the text — a prompt, a file path, a command, an error —
// with the session, time, event, the field that matched and a sanitised
// one-line snippet.
//
// It is fast on large projects because almost every entry is rejected
// before it is decoded: a byte-level substring test of the raw log line
// against the part of the query that any JSON encoder writes verbatim (the
// prefilter). Only entries that pass are decoded, and the match is then
// confirmed on the decoded strings, so an escaped character in the log
// never causes a false match or a missed one.
package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// Query is what to look for.
type Query struct {
	// Text is the text to find in a payload's string values.
	Text string
	// Session keeps only sessions whose id starts with it ("" for all).
	Session string
	// Limit stops after that many matches (0: no limit).
	Limit int
	// CaseSensitive matches case exactly. Otherwise the match ignores
	// case when Text has no upper-case letter ("smart case").
	CaseSensitive bool
	// PerSession reports only the first match found in each session
	// (Limit then counts sessions).
	PerSession bool
}

// Match is one log entry that holds the text.
type Match struct {
	SessionID string    `json:"session_id"`
	Timestamp time.Time `json:"timestamp"`
	Event     string    `json:"event"`
	// Field is the path of the payload field that matched, such as
	// "prompt", "tool_input.command" or "tool_response.stdout".
	Field string `json:"field"`
	// Snippet is the text around the match on one line, without
	// terminal controls, at most about SnippetWidth characters.
	Snippet string `json:"snippet"`
}

// Stats counts what a search read.
type Stats struct {
	Files   int // log files read
	Decoded int // entries that passed the prefilter and were decoded
	Matches int
}

// SnippetWidth is the snippet's length in characters, about.
const SnippetWidth = 100

// ErrEmpty is returned for a query with no text.
var ErrEmpty = errors.New("nothing to search for")

// Run streams every event log of the project at l (rotated segments before
// their live log, logs by name) and calls fn with each match as it is
// found, in file order. fn may return logs.ErrStop to end the search.
func Run(ctx context.Context, l state.Layout, q Query, fn func(Match) error) (Stats, error) {
	var st Stats
	if q.Text == "" {
		return st, ErrEmpty
	}
	m := newMatcher(q)
	files, err := logs.EventLogs(l.LogsDir())
	if err != nil {
		return st, err
	}
	var stop bool
	seen := map[string]bool{}
	for _, path := range files {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		st.Files++
		n := 0
		err := logs.Stream(path, func() {}, func(raw []byte) error {
			if n++; n&0xfff == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if !m.prefilter(raw) {
				return nil
			}
			st.Decoded++
			hit, ok := m.entry(raw)
			if !ok || q.PerSession && seen[hit.SessionID] {
				return nil
			}
			if q.PerSession {
				seen[hit.SessionID] = true
			}
			st.Matches++
			if err := fn(hit); err != nil {
				if errors.Is(err, logs.ErrStop) {
					stop = true
				}
				return err
			}
			if q.Limit > 0 && st.Matches >= q.Limit {
				stop = true
				return logs.ErrStop
			}
			return nil
		})
		if err != nil {
			return st, fmt.Errorf("search %s: %w", filepath.Base(path), err)
		}
		if stop {
			break
		}
	}
	return st, nil
}

// matcher holds a query prepared for matching.
type matcher struct {
	q        Query
	fold     bool
	needle   string // the text, lower-cased when folding
	fragment []byte // the prefilter: a part of needle every encoder writes verbatim
	session  []byte
}

func newMatcher(q Query) *matcher {
	m := &matcher{q: q, needle: q.Text, session: []byte(q.Session)}
	if !q.CaseSensitive && !hasUpper(q.Text) {
		m.fold = true
		m.needle = strings.ToLower(q.Text)
	}
	m.fragment = []byte(verbatimRun(m.needle))
	return m
}

func hasUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// verbatimRun returns the longest run of s made of bytes that JSON
// encoders write as themselves: printable ASCII other than the quote, the
// backslash, the slash (some encoders write \/) and the characters some
// escape for HTML (<, >, &). Everything outside that set may appear
// escaped in a log, so it cannot be looked for in raw bytes.
func verbatimRun(s string) string {
	best, start := "", 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && verbatim(s[i]) {
			continue
		}
		if i-start > len(best) {
			best = s[start:i]
		}
		start = i + 1
	}
	return best
}

func verbatim(c byte) bool {
	if c < 0x20 || c >= 0x7f {
		return false
	}
	switch c {
	case '"', '\\', '/', '<', '>', '&':
		return false
	}
	return true
}

// prefilter reports whether the raw entry may hold the text: it holds the
// fragment (and the session prefix, when one is asked for).
func (m *matcher) prefilter(raw []byte) bool {
	if len(m.session) > 0 && !bytes.Contains(raw, m.session) {
		return false
	}
	if len(m.fragment) == 0 {
		return true
	}
	if !m.fold {
		return bytes.Contains(raw, m.fragment)
	}
	return containsFold(raw, m.fragment)
}

// containsFold reports whether s holds the lower-case ASCII needle in any
// case. It looks for the needle's first letter in both cases with the
// fast byte search, and compares the rest in place.
func containsFold(s, needle []byte) bool {
	c := needle[0]
	upper := c
	if c >= 'a' && c <= 'z' {
		upper = c - 'a' + 'A'
	}
	rest := needle[1:]
	for i := 0; i+len(needle) <= len(s); {
		j := indexEither(s[i:len(s)-len(rest)], c, upper)
		if j < 0 {
			return false
		}
		i += j
		if equalFoldASCII(s[i+1:i+1+len(rest)], rest) {
			return true
		}
		i++
	}
	return false
}

// indexEither returns the first index of a or b in s, or -1.
func indexEither(s []byte, a, b byte) int {
	if a == b {
		return bytes.IndexByte(s, a)
	}
	i := bytes.IndexByte(s, a)
	if i < 0 {
		return bytes.IndexByte(s, b)
	}
	if k := bytes.IndexByte(s[:i], b); k >= 0 {
		return k
	}
	return i
}

// equalFoldASCII compares s with the lower-case ASCII t, ignoring the case
// of s's ASCII letters.
func equalFoldASCII(s, t []byte) bool {
	for i := range t {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != t[i] {
			return false
		}
	}
	return true
}

// entry decodes a raw entry and looks for the text in its payload's string
// values, in document order.
func (m *matcher) entry(raw []byte) (Match, bool) {
	e, ok := logs.ReadHead(raw)
	if !ok {
		return Match{}, false
	}
	if m.q.Session != "" && !strings.HasPrefix(e.SessionID, m.q.Session) {
		return Match{}, false
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(e.Input))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return Match{}, false
	}
	field, snippet, ok := m.walk(v, nil)
	if !ok {
		return Match{}, false
	}
	return Match{
		SessionID: termtext.Line(e.SessionID),
		Timestamp: e.Timestamp,
		Event:     termtext.Line(e.Event),
		Field:     termtext.Line(strings.Join(field, ".")),
		Snippet:   snippet,
	}, true
}

// walk finds the first string value holding the text. Object keys are
// visited in sorted order so that the field reported is stable.
func (m *matcher) walk(v any, path []string) ([]string, string, bool) {
	switch x := v.(type) {
	case string:
		if s, ok := m.find(x); ok {
			return path, s, true
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p, s, ok := m.walk(x[k], append(path, k)); ok {
				return p, s, true
			}
		}
	case []any:
		for i, item := range x {
			if p, s, ok := m.walk(item, append(path, strconv.Itoa(i))); ok {
				return p, s, true
			}
		}
	}
	return nil, "", false
}

// find reports whether s holds the text and returns the snippet around it.
func (m *matcher) find(s string) (string, bool) {
	hay := s
	if m.fold {
		hay = strings.ToLower(s)
	}
	i := strings.Index(hay, m.needle)
	if i < 0 {
		return "", false
	}
	if len(hay) != len(s) { // lower-casing changed byte lengths: cut the original at the start
		i = 0
	}
	return Snippet(s, i, len(m.needle)), true
}

// Snippet returns about SnippetWidth characters of s around the match at
// byte offset i of length n, on one line, without terminal controls, with
// "…" where text was left out.
func Snippet(s string, i, n int) string {
	const before = 30
	start := max(i-before*4, 0) // in bytes; trimmed to characters below
	pre := []rune(oneLine(s[start:i]))
	if len(pre) > before {
		pre = append([]rune("…"), pre[len(pre)-before:]...)
	} else if start > 0 {
		pre = append([]rune("…"), pre...)
	}
	rest := s[i:]
	budget := SnippetWidth - len(pre)
	post := []rune(oneLine(termtext.Cut(rest, budget*4)))
	if len(post) > budget {
		post = append(post[:budget], []rune("…")...)
	} else if len(rest) > budget*4 {
		post = append(post, []rune("…")...)
	}
	return strings.TrimSpace(string(pre) + string(post))
}

// oneLine strips terminal controls and folds each run of white space
// (newlines included) to one space.
func oneLine(s string) string {
	s = termtext.Line(s)
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}
