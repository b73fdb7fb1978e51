package transcript

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/dylan-gluck/spcstr/internal/satmath"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/state"
)

// MaxReplayBytes bounds how much of a transcript a replay reads.
const MaxReplayBytes = 256 << 20

// Timeline is a transcript's token use over time, read once for a replay
// (`spcstr strategy dry-run`): Until gives the tokens as the recorder
// would have counted them at a moment of the session.
type Timeline struct {
	entries []timed
	next    int
	cur     state.TranscriptCursor
	tokens  state.Tokens
}

type timed struct {
	at        time.Time
	u         state.MessageUsage
	model     string
	sidechain bool
}

// ReadTimeline reads the token use of the transcript at path. A missing
// transcript gives an empty timeline.
func ReadTimeline(path string) (*Timeline, error) {
	t := &Timeline{}
	if path == "" {
		return t, nil
	}
	err := eachLine(path, func(raw []byte) {
		if u, model, side, ok := parseUsage(raw, &t.tokens); ok {
			t.entries = append(t.entries, timed{at: lineTime(raw), u: u, model: model, sidechain: side})
		}
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return t, err
	}
	return t, nil
}

// Until counts every message written up to at (and those without a time)
// and returns the tokens so far.
func (t *Timeline) Until(at time.Time) state.Tokens {
	for ; t.next < len(t.entries); t.next++ {
		e := t.entries[t.next]
		if !e.at.IsZero() && e.at.After(at) {
			break
		}
		addUsage(e.u, e.model, &t.cur, &t.tokens, nil)
		if !e.sidechain {
			t.tokens.ContextUsed = satmath.Add(satmath.Add(e.u.Input, e.u.CacheRead), e.u.CacheCreation)
		}
	}
	return t.tokens
}

// Event is one hook event a transcript implies.
type Event struct {
	At   time.Time
	Name string
	// Payload is the hook input Claude Code would have sent (the fields a
	// transcript holds: session_id, cwd, transcript_path, prompt,
	// tool_name, tool_input, tool_use_id, tool_response, source,
	// last_assistant_message).
	Payload json.RawMessage
}

// Events replays a Claude Code transcript as the hook events it implies,
// in order: SessionStart; UserPromptSubmit for each prompt; PreToolUse
// and PostToolUse (PostToolUseFailure for an error) for each tool call of
// the main agent; PreCompact and SessionStart (source compact) at a
// compaction; Stop at the end of each turn (where Claude Code ran its Stop
// hooks, else before the next prompt and at the end). Subagents' own
// lines (isSidechain) are skipped. sessionID is the transcript's.
func Events(path string) (events []Event, sessionID string, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", err
	}
	var (
		cwd       string
		last      time.Time
		started   bool
		turn      bool   // assistant output since the last Stop
		lastText  string // the main agent's last text, for Stop
		toolNames = map[string]json.RawMessage{}
	)
	emit := func(at time.Time, name string, fields map[string]any) {
		p := map[string]any{"hook_event_name": name, "session_id": sessionID, "transcript_path": abs}
		if cwd != "" {
			p["cwd"] = cwd
		}
		for k, v := range fields {
			p[k] = v
		}
		raw, _ := json.Marshal(p)
		events = append(events, Event{At: at, Name: name, Payload: raw})
	}
	stop := func(at time.Time) {
		if turn {
			emit(at, "Stop", map[string]any{"stop_hook_active": false, "last_assistant_message": lastText})
			turn = false
		}
	}
	err = eachLine(abs, func(raw []byte) {
		var l struct {
			Type        string          `json:"type"`
			Subtype     string          `json:"subtype"`
			SessionID   string          `json:"sessionId"`
			Cwd         string          `json:"cwd"`
			IsSidechain bool            `json:"isSidechain"`
			IsMeta      bool            `json:"isMeta"`
			Result      json.RawMessage `json:"toolUseResult"`
			Message     struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(raw, &l) != nil || l.IsSidechain {
			return
		}
		at := lineTime(raw)
		if at.IsZero() {
			at = last
		}
		last = at
		if sessionID == "" && l.SessionID != "" {
			sessionID = l.SessionID
		}
		if l.Cwd != "" {
			cwd = l.Cwd
		}
		if !started && (l.Type == "user" || l.Type == "assistant") && sessionID != "" {
			started = true
			emit(at, "SessionStart", map[string]any{"source": "startup"})
		}
		switch {
		case l.Type == "system" && l.Subtype == "stop_hook_summary":
			stop(at)
		case l.Type == "system" && l.Subtype == "compact_boundary":
			stop(at)
			emit(at, "PreCompact", map[string]any{"trigger": "auto"})
			emit(at, "SessionStart", map[string]any{"source": "compact"})
		case l.Type == "user" && !l.IsMeta:
			var prompt string
			if json.Unmarshal(l.Message.Content, &prompt) == nil {
				stop(at)
				emit(at, "UserPromptSubmit", map[string]any{"prompt": prompt})
				return
			}
			var blocks []struct {
				Type      string          `json:"type"`
				Text      string          `json:"text"`
				ToolUseID string          `json:"tool_use_id"`
				IsError   bool            `json:"is_error"`
				Content   json.RawMessage `json:"content"`
			}
			_ = json.Unmarshal(l.Message.Content, &blocks)
			var texts []string
			for _, b := range blocks {
				switch b.Type {
				case "text":
					texts = append(texts, b.Text)
				case "tool_result":
					call, ok := toolNames[b.ToolUseID]
					if !ok {
						continue
					}
					var c struct {
						Name  string          `json:"name"`
						Input json.RawMessage `json:"input"`
					}
					_ = json.Unmarshal(call, &c)
					name, resp := "PostToolUse", l.Result
					if len(resp) == 0 {
						resp = b.Content
					}
					fields := map[string]any{"tool_name": c.Name, "tool_input": c.Input, "tool_use_id": b.ToolUseID, "tool_response": resp}
					if b.IsError {
						name = "PostToolUseFailure"
						delete(fields, "tool_response")
						fields["error"] = string(b.Content)
					}
					emit(at, name, fields)
					turn = true
				}
			}
			if len(texts) > 0 {
				stop(at)
				emit(at, "UserPromptSubmit", map[string]any{"prompt": strings.Join(texts, "\n")})
			}
		case l.Type == "assistant":
			var blocks []struct {
				Type  string          `json:"type"`
				ID    string          `json:"id"`
				Name  string          `json:"name"`
				Text  string          `json:"text"`
				Input json.RawMessage `json:"input"`
			}
			_ = json.Unmarshal(l.Message.Content, &blocks)
			for _, b := range blocks {
				switch b.Type {
				case "text":
					lastText = b.Text
					turn = true
				case "tool_use":
					call, _ := json.Marshal(map[string]any{"name": b.Name, "input": b.Input})
					toolNames[b.ID] = call
					emit(at, "PreToolUse", map[string]any{"tool_name": b.Name, "tool_input": b.Input, "tool_use_id": b.ID})
					turn = true
				}
			}
		}
	})
	if err != nil {
		return nil, "", err
	}
	stop(last)
	if sessionID == "" {
		return nil, "", fmt.Errorf("%s: no sessionId in any line: not a Claude Code transcript", path)
	}
	return events, sessionID, nil
}

// eachLine calls fn with every complete line of the regular file at path
// (at most MaxReplayBytes; lines over MaxLine skipped).
func eachLine(path string, fn func(raw []byte)) error {
	f, _, err := safefs.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(io.LimitReader(f, MaxReplayBytes), 64<<10)
	for {
		line, _, err := readLine(br)
		if err != nil {
			return nil // the end, or an incomplete last line
		}
		if line != nil {
			fn(line)
		}
	}
}

func lineTime(raw []byte) time.Time {
	var l struct {
		Timestamp time.Time `json:"timestamp"`
	}
	_ = json.Unmarshal(raw, &l)
	return l.Timestamp
}
