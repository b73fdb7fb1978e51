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

	"github.com/mailru/easyjson/jlexer"

	"github.com/dylan-gluck/spcstr/internal/jsonread"
	"github.com/dylan-gluck/spcstr/internal/safefs"
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
			countLine(line, cur, tokens)
			if title != nil {
				titleLine(line, title)
			}
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

// The names of the transcript members read (internal/jsonread: an
// assistant line's usage and a title line's text, by encoding/json's rules
// without its reflection).
var (
	lineNames    = []string{"type", "isSidechain", "message"}
	messageNames = []string{"id", "model", "usage"}
	usageNames   = []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"}
	titleNames   = []string{"type", "customTitle", "aiTitle", "summary"}
)

var assistantMark = []byte(`"assistant"`)

func countLine(raw []byte, cur *state.TranscriptCursor, tokens *state.Tokens) {
	if u, model, side, ok := parseUsage(raw); ok {
		addUsage(u, model, side, cur, tokens)
	}
}

// parseUsage reads the usage of one assistant line (ok false for any
// other line, and for synthetic messages).
func parseUsage(raw []byte) (u state.MessageUsage, model string, sidechain, ok bool) {
	if !bytes.Contains(raw, assistantMark) || !bytes.Contains(raw, []byte(`"usage"`)) {
		return u, "", false, false
	}
	if !json.Valid(raw) {
		return u, "", false, false
	}
	var typ string
	hasUsage := false
	usage := func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "input_tokens":
			return jsonread.Int(l, &u.Input)
		case "output_tokens":
			return jsonread.Int(l, &u.Output)
		case "cache_read_input_tokens":
			return jsonread.Int(l, &u.CacheRead)
		default:
			return jsonread.Int(l, &u.CacheCreation)
		}
	}
	message := func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "id":
			return jsonread.String(l, &u.ID)
		case "model":
			return jsonread.String(l, &model)
		}
		if l.CurrentToken() == jlexer.TokenNull { // usage: null
			l.Skip()
			hasUsage, u = false, state.MessageUsage{ID: u.ID}
			return true
		}
		hasUsage = true
		return jsonread.Object(l, usageNames, usage)
	}
	ok = jsonread.Members(raw, lineNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "type":
			return jsonread.String(l, &typ)
		case "isSidechain":
			return jsonread.Bool(l, &sidechain)
		default:
			return jsonread.Object(l, messageNames, message)
		}
	})
	if !ok || typ != "assistant" || !hasUsage || model == "<synthetic>" {
		return state.MessageUsage{}, "", false, false
	}
	return u, model, sidechain, true
}

// addUsage counts one message's usage once (last line wins), in the
// totals and in its model's.
func addUsage(u state.MessageUsage, model string, sidechain bool, cur *state.TranscriptCursor, tokens *state.Tokens) {
	prev := state.MessageUsage{}
	found := false
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
	tokens.Input += u.Input - prev.Input
	tokens.Output += u.Output - prev.Output
	tokens.CacheRead += u.CacheRead - prev.CacheRead
	tokens.CacheCreation += u.CacheCreation - prev.CacheCreation
	if model == "" {
		model = UnknownModel
	}
	if tokens.ByModel == nil {
		tokens.ByModel = map[string]state.ModelUsage{}
	}
	if _, ok := tokens.ByModel[model]; !ok && len(tokens.ByModel) >= maxModels {
		model = OtherModels
	}
	bm := tokens.ByModel[model]
	bm.Input += u.Input - prev.Input
	bm.Output += u.Output - prev.Output
	bm.CacheRead += u.CacheRead - prev.CacheRead
	bm.CacheCreation += u.CacheCreation - prev.CacheCreation
	tokens.ByModel[model] = bm
	if !sidechain {
		tokens.ContextUsed = u.Input + u.CacheRead + u.CacheCreation
	}
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
	ok := jsonread.Members(raw, titleNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "type":
			return jsonread.String(l, &typ)
		case "customTitle":
			return jsonread.String(l, &custom)
		case "aiTitle":
			return jsonread.String(l, &ai)
		default:
			return jsonread.String(l, &summary)
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

// ContextWindow returns the context window size for a model id: 1,000,000
// for the long-context variants ("...[1m]"), otherwise def.
func ContextWindow(model string, def int64) int64 {
	if bytes.Contains([]byte(model), []byte("[1m]")) {
		return 1_000_000
	}
	return def
}
