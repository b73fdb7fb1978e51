// Package transcript reads token use, and the session's title, from a
// Claude Code session transcript
// (~/.claude/projects/<slug>/<session>.jsonl) incrementally: each call reads
// only the bytes appended since the previous call, counts each API message
// once (Claude Code writes one line per content block, each repeating the
// message's usage, and earlier lines may carry partial output counts: the
// last line of a message wins), and skips synthetic messages. The rules are
// those Claude Code documents for transcripts.
package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/mailru/easyjson/jlexer"

	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/internal/satmath"
	"github.com/dylan-gluck/spcstr/state"
)

// recentKeep bounds how many message ids the cursor remembers for
// last-line-wins corrections.
const recentKeep = 32

// maxRead bounds how much of a transcript one call reads, so that a hook
// arriving at a long resumed transcript does not stall; the rest is read by
// the following hooks.
const maxRead = 32 << 20

// Update reads the transcript at path from the cursor's offset, adds the
// usage of new or changed messages to tokens, and advances the cursor. A
// missing transcript (it does not exist yet at SessionStart) is not an error.
// A transcript that shrank or changed path is read again from the start.
func Update(path string, cur *state.TranscriptCursor, tokens *state.Tokens) error {
	return Read(path, cur, tokens, nil)
}

// TitleFunc receives a title line of the transcript: its text and its
// source (state.TitleCustom, state.TitleAI or state.TitleSummary), in the
// order the transcript has them.
type TitleFunc func(text, source string)

// Read is Update that also passes the transcript's title lines (a title
// the user gave, Claude Code's generated title, a summary) to title (nil:
// ignored). Session.SetTitle is the usual title.
func Read(path string, cur *state.TranscriptCursor, tokens *state.Tokens, title TitleFunc) error {
	return readMain(path, cur, tokens, title, nil, nil, nil)
}

// readMain reads the main transcript: usage, titles, and Claude Code's
// cost-state line into cost (nil: ignored). When fork is not nil, a
// message a fork copied from its parent's history (its line's
// requestSessionId names another session than fork's) is also counted in
// fork.Inherited, and fork.ForkedFrom names that session.
func readMain(path string, cur *state.TranscriptCursor, tokens *state.Tokens, title TitleFunc, cost **state.ClaudeCost, model *string, fork *state.Session) error {
	return readFrom(path, cur, func(line []byte) {
		if u, key, side, ok := parseUsage(line, tokens); ok {
			var also *map[string]state.ModelUsage
			if fork != nil {
				if from := requestSession(line); from != "" && from != fork.SessionID {
					fork.ForkedFrom = from
					also = &fork.Inherited
				}
			}
			addUsage(u, key, cur, tokens, also)
			if !side {
				tokens.ContextUsed = satmath.Add(satmath.Add(u.Input, u.CacheRead), u.CacheCreation)
				if m, _, _ := pricing.SplitVariant(key); model != nil && m != UnknownModel {
					*model = m
				}
			}
		}
		if title != nil {
			titleLine(line, title)
		}
		if cost != nil {
			costLine(line, cost)
		}
	})
}

// readFrom calls fn with each complete line appended to the file at path
// since the cursor's offset, and advances the cursor. A missing file is
// not an error; a file that shrank or changed path is read again from the
// start.
func readFrom(path string, cur *state.TranscriptCursor, fn func(line []byte)) error {
	if path == "" {
		return nil
	}
	if cur.Path != path {
		if cur.Path != "" {
			// A different transcript (e.g. resumed elsewhere): keep totals,
			// start reading the new file from its beginning.
			cur.Recent = nil
		}
		cur.Path, cur.Offset = path, 0
	}
	// Most hooks find the transcript as the previous one left it: one
	// stat, no open.
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == cur.Offset {
		return nil
	}
	// Only a regular file: a FIFO or device named by the payload would
	// block or never end.
	f, fi, err := safefs.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("open transcript: %w", err)
	}
	defer f.Close()
	if fi.Size() < cur.Offset {
		cur.Offset, cur.Recent = 0, nil
	}
	if fi.Size() == cur.Offset {
		return nil
	}
	if _, err := f.Seek(cur.Offset, io.SeekStart); err != nil {
		return fmt.Errorf("seek transcript: %w", err)
	}
	br := bufio.NewReaderSize(io.LimitReader(f, maxRead), 64<<10)
	pos := cur.Offset
	for {
		line, n, err := readLine(br)
		if err != nil {
			if n > MaxLine {
				// A line longer than the limit that the read window ends
				// inside: skip what was read; the rest of it is a fragment
				// that parses as nothing and is skipped in turn.
				pos += n
			}
			// Otherwise an incomplete last line: leave it for the next call.
			break
		}
		pos += n
		if line != nil {
			fn(line)
		}
	}
	cur.Offset = pos
	return nil
}

// MaxLine is the longest transcript line parsed. A longer line (a huge
// tool output) is skipped without being held in memory: the offset moves
// past it and later lines keep counting.
const MaxLine = 8 << 20

// readLine returns the next complete line and its length n in bytes; line
// is nil for a line over MaxLine (skipped). err is set when no complete
// line is left (n then counts the bytes of the incomplete one).
func readLine(br *bufio.Reader) (line []byte, n int64, err error) {
	chunk, err := br.ReadSlice('\n')
	n = int64(len(chunk))
	if err == nil {
		return chunk, n, nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, n, err
	}
	full := append([]byte(nil), chunk...)
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = br.ReadSlice('\n')
		n += int64(len(chunk))
		if full != nil && n <= MaxLine {
			full = append(full, chunk...)
		} else {
			full = nil
		}
	}
	if err != nil {
		return nil, n, err
	}
	return full, n, nil
}

// The names of the transcript members read (internal/jsoncodec: an
// assistant line's usage and a title line's text, by encoding/json's rules
// without its reflection).
var (
	lineNames     = []string{"type", "isSidechain", "message"}
	messageNames  = []string{"id", "model", "usage"}
	usageNames    = []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "cache_creation", "server_tool_use", "inference_geo"}
	creationNames = []string{"ephemeral_1h_input_tokens"}
	toolUseNames  = []string{"web_search_requests"}
	titleNames    = []string{"type", "customTitle", "aiTitle", "summary"}
)

var assistantMark = []byte(`"assistant"`)

// maxCount is the largest token count one message is believed to have; a
// message with a count above it, or below zero, is skipped and counted as
// skipped (a damaged or hostile transcript cannot overflow the totals).
const maxCount = 1 << 40

// parseUsage reads the usage of one assistant line and the usage key it
// is priced under (ok false for any other line, for synthetic messages,
// and for absurd usage, which it counts in tokens.Skipped).
func parseUsage(raw []byte, tokens *state.Tokens) (u state.MessageUsage, key string, sidechain, ok bool) {
	if !bytes.Contains(raw, assistantMark) || !bytes.Contains(raw, []byte(`"usage"`)) {
		return u, "", false, false
	}
	if !json.Valid(raw) {
		return u, "", false, false
	}
	var typ, model, geo string
	hasUsage, bad := false, false
	num := func(l *jlexer.Lexer, p *int64) bool {
		if l.CurrentToken() != jlexer.TokenNumber {
			return jsoncodec.Int(l, p) // null, or a mismatch
		}
		lit := string(l.Raw())
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil && n >= 0 && n <= maxCount {
			*p = n
			return true
		}
		if _, err := strconv.ParseFloat(lit, 64); err != nil {
			return false
		}
		bad = true // negative, a fraction, or beyond any real request
		return true
	}
	usage := func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "input_tokens":
			return num(l, &u.Input)
		case "output_tokens":
			return num(l, &u.Output)
		case "cache_read_input_tokens":
			return num(l, &u.CacheRead)
		case "cache_creation_input_tokens":
			return num(l, &u.CacheCreation)
		case "cache_creation":
			return jsoncodec.Object(l, creationNames, func(_ string, l *jlexer.Lexer) bool { return num(l, &u.CacheWrite1h) })
		case "server_tool_use":
			return jsoncodec.Object(l, toolUseNames, func(_ string, l *jlexer.Lexer) bool { return num(l, &u.WebSearches) })
		default: // inference_geo
			return jsoncodec.String(l, &geo)
		}
	}
	message := func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "id":
			return jsoncodec.String(l, &u.ID)
		case "model":
			return jsoncodec.String(l, &model)
		}
		if l.CurrentToken() == jlexer.TokenNull { // usage: null
			l.Skip()
			hasUsage, u = false, state.MessageUsage{ID: u.ID}
			return true
		}
		hasUsage = true
		return jsoncodec.Object(l, usageNames, usage)
	}
	ok = jsoncodec.Members(raw, lineNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "type":
			return jsoncodec.String(l, &typ)
		case "isSidechain":
			return jsoncodec.Bool(l, &sidechain)
		default:
			return jsoncodec.Object(l, messageNames, message)
		}
	})
	if !ok || typ != "assistant" || !hasUsage || model == "<synthetic>" {
		return state.MessageUsage{}, "", false, false
	}
	if bad {
		tokens.Skipped = satmath.Add(tokens.Skipped, 1)
		return state.MessageUsage{}, "", false, false
	}
	u.CacheWrite1h = min(u.CacheWrite1h, u.CacheCreation)
	if model == "" {
		model = UnknownModel
	}
	return u, pricing.VariantKey(model, geo, u.Input+u.CacheRead+u.CacheCreation), sidechain, true
}

var (
	requestSessionMark  = []byte(`"requestSessionId"`)
	requestSessionNames = []string{"requestSessionId"}
)

// requestSession is the requestSessionId of an assistant line: Claude Code
// 2.1.330 stamps it on the lines a fork (--fork-session) copies from its
// parent's transcript, naming the session that made the request (the
// copies carry the fork's own sessionId, and the parent's uuid and
// message id). "" when the line has none, or one that cannot be a session
// id.
func requestSession(raw []byte) string {
	if !bytes.Contains(raw, requestSessionMark) {
		return ""
	}
	var id string
	if !jsoncodec.Members(raw, requestSessionNames, func(_ string, l *jlexer.Lexer) bool {
		return jsoncodec.String(l, &id)
	}) || !validAgentID(id) {
		return ""
	}
	return id
}

// addModel adds d − prev to m, saturating.
func addModel(m *state.ModelUsage, d, prev state.MessageUsage) {
	m.Input = satmath.Add(m.Input, d.Input-prev.Input)
	m.Output = satmath.Add(m.Output, d.Output-prev.Output)
	m.CacheRead = satmath.Add(m.CacheRead, d.CacheRead-prev.CacheRead)
	m.CacheCreation = satmath.Add(m.CacheCreation, d.CacheCreation-prev.CacheCreation)
	m.CacheWrite1h = satmath.Add(m.CacheWrite1h, d.CacheWrite1h-prev.CacheWrite1h)
	m.WebSearches = satmath.Add(m.WebSearches, d.WebSearches-prev.WebSearches)
}

// addUsage counts one message's usage once (last line wins), in the
// totals and under its usage key, in tokens and (when not nil) in also.
func addUsage(u state.MessageUsage, key string, cur *state.TranscriptCursor, tokens *state.Tokens, also *map[string]state.ModelUsage) {
	prev := state.MessageUsage{}
	found := false
	u.Key = key
	if u.ID != "" {
		for i := range cur.Recent {
			if cur.Recent[i].ID == u.ID {
				prev, found = cur.Recent[i], true
				cur.Recent[i] = u
				break
			}
		}
	}
	if !found {
		cur.Recent = append(cur.Recent, u)
		if len(cur.Recent) > recentKeep {
			cur.Recent = cur.Recent[len(cur.Recent)-recentKeep:]
		}
	}
	tokens.Input = satmath.Add(tokens.Input, u.Input-prev.Input)
	tokens.Output = satmath.Add(tokens.Output, u.Output-prev.Output)
	tokens.CacheRead = satmath.Add(tokens.CacheRead, u.CacheRead-prev.CacheRead)
	tokens.CacheCreation = satmath.Add(tokens.CacheCreation, u.CacheCreation-prev.CacheCreation)
	if found && prev.Key != "" && prev.Key != key {
		// The message's earlier line went under another key: move it.
		addTo(&tokens.ByModel, prev.Key, state.MessageUsage{}, prev)
		if also != nil {
			addTo(also, prev.Key, state.MessageUsage{}, prev)
		}
		prev = state.MessageUsage{}
	}
	addTo(&tokens.ByModel, key, u, prev)
	if also != nil {
		addTo(also, key, u, prev)
	}
}

// addTo adds u − prev under key in by (bounded to maxModels keys).
func addTo(by *map[string]state.ModelUsage, key string, u, prev state.MessageUsage) {
	if *by == nil {
		*by = map[string]state.ModelUsage{}
	}
	if _, ok := (*by)[key]; !ok && len(*by) >= maxModels {
		key = OtherModels
	}
	m := (*by)[key]
	addModel(&m, u, prev)
	(*by)[key] = m
}

// Keys of Tokens.ByModel that are not model ids.
const (
	// UnknownModel holds messages that name no model.
	UnknownModel = "unknown"
	// OtherModels holds the models past the first maxModels (a damaged
	// or hostile transcript cannot grow state.json without bound).
	OtherModels = "other"
)

const maxModels = 16

var (
	customTitleMark = []byte(`"customTitle"`)
	aiTitleMark     = []byte(`"aiTitle"`)
	summaryMark     = []byte(`"summary"`)
)

// titleLine passes a title line's text to fn: {"type":"custom-title",
// "customTitle":…}, {"type":"ai-title","aiTitle":…} or {"type":"summary",
// "summary":…}. Other lines cost a few byte searches.
func titleLine(raw []byte, fn TitleFunc) {
	if !bytes.Contains(raw, customTitleMark) && !bytes.Contains(raw, aiTitleMark) && !bytes.Contains(raw, summaryMark) {
		return
	}
	if !json.Valid(raw) {
		return
	}
	var typ, custom, ai, summary string
	ok := jsoncodec.Members(raw, titleNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "type":
			return jsoncodec.String(l, &typ)
		case "customTitle":
			return jsoncodec.String(l, &custom)
		case "aiTitle":
			return jsoncodec.String(l, &ai)
		default:
			return jsoncodec.String(l, &summary)
		}
	})
	if !ok {
		return
	}
	switch typ {
	case state.TitleCustom:
		fn(custom, state.TitleCustom)
	case state.TitleAI:
		fn(ai, state.TitleAI)
	case state.TitleSummary:
		fn(summary, state.TitleSummary)
	}
}

// ContextWindow returns the context window of a model id (package
// pricing: Claude Code's catalogue, 1,000,000 for a "[1m]" variant),
// otherwise def.
func ContextWindow(model string, def int64) int64 {
	return pricing.ContextWindow(model, def)
}
