package recorder

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/internal/transcript"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// state.json is a cache of the logs: every event the recorder applied is in
// its event log, with the payload and the answer printed. Rebuild applies
// them again, in order, to a new state. What it cannot know: gates'
// bookkeeping (the consecutive Stop-block count, one-time notes), spcstr's
// own errors other than those logged with their event, the branch at each
// event (it takes the current one), and payload fields cut in the log
// (over logs.max_payload_bytes).

// logged is one event of a session, read back from its log.
type logged struct {
	at     time.Time
	seq    int
	name   string
	input  json.RawMessage
	answer json.RawMessage
	errMsg string
}

// SessionEvents returns the ids of the sessions that have events in the
// project's logs.
func SessionEvents(layout state.Layout) (map[string]int, error) {
	ids := map[string]int{}
	err := eachEventLog(layout, func(path string) error {
		return logs.ScanFile(path, func(raw []byte) error {
			var e struct {
				SessionID string `json:"session_id"`
			}
			if json.Unmarshal(raw, &e) == nil && state.ValidSessionID(e.SessionID) {
				ids[e.SessionID]++
			}
			return nil
		})
	})
	return ids, err
}

// eachEventLog calls fn for every event log of the project (rotated parts
// included), skipping spcstr's own logs.
func eachEventLog(layout state.Layout, fn func(path string) error) error {
	found, err := logs.List(layout.LogsDir(), func(f logs.File) bool { return f.Kind == logs.Events })
	if err != nil {
		return err
	}
	for _, f := range found {
		if err := fn(f.Path); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(f.Path), err)
		}
	}
	return nil
}

// Rebuild computes a session's state from the project's logs, bounded as
// the recorder bounds it. It returns an error wrapping os.ErrNotExist when
// the logs hold no event of the session.
func Rebuild(ctx context.Context, layout state.Layout, id string, cfg *config.Config) (*state.Session, error) {
	if cfg == nil {
		cfg = config.Default()
	}
	s, err := replayLogs(ctx, layout, id, cfg, false)
	if err != nil {
		return nil, err
	}
	s.Bound(cfg.State.Keep)
	return s, nil
}

// History computes a session's complete state from the logs: every prompt
// (with its whole logged text), error, notification and agent, where
// state.json keeps only the latest. The export uses it for long sessions.
func History(ctx context.Context, layout state.Layout, id string, cfg *config.Config) (*state.Session, error) {
	if cfg == nil {
		cfg = config.Default()
	}
	return replayLogs(ctx, layout, id, cfg, true)
}

// replayLogs applies a session's logged events again, in order, to a new
// state; whole keeps prompts' whole text.
func replayLogs(ctx context.Context, layout state.Layout, id string, cfg *config.Config, whole bool) (*state.Session, error) {
	events, err := sessionEvents(ctx, layout, id)
	if err != nil {
		return nil, err
	}
	s := state.New(id, layout.Root, events[0].at)
	var retire []transcript.Hint // the events that retire subagent transcripts, applied after reading them
	for _, le := range events {
		ev, err := hookio.Decode(le.input)
		if err != nil {
			continue // the recorder rejected it too
		}
		now := le.at.UTC()
		if le.errMsg != "" {
			s.Errors = append(s.Errors, state.Error{Timestamp: now, Type: state.ErrorSpcstr, Message: le.errMsg})
		}
		a := &applier{ev: ev, name: le.name, now: now, root: layout.Root, wholePrompts: whole}
		a.apply(s)
		hint := transcript.Hint{Event: le.name, AgentID: ev.AgentID, AgentPath: ev.AgentTranscriptPath}
		transcript.Track(s, hint)
		if le.name == hookio.SubagentStop || le.name == hookio.SessionEnd {
			retire = append(retire, hint)
		}
		if le.name == hookio.PreToolUse && hookio.IsSubagentTool(ev.ToolName) && denied(le.answer) {
			dropAgentCall(s, ev.ToolUseID)
		}
	}
	s.Branch = gitrepo.CachedBranch(layout.Root, &s.GitHead)
	for i := 0; i < 64; i++ { // a transcript read takes at most 32 MiB a call
		off := readOffsets(s)
		if err := transcript.ReadSession(s, transcript.Hint{Event: "Stop"}); err != nil || readOffsets(s) == off {
			break
		}
	}
	// Everything is read: the agents that stopped are retired as a later
	// hook would have, and SessionEnd retires the rest.
	for _, h := range retire {
		transcript.Stopped(s, h)
	}
	transcript.Retire(s, transcript.Hint{Event: "Stop"}, nil)
	for _, h := range retire {
		if h.Event == hookio.SessionEnd {
			transcript.Retire(s, h, nil)
		}
	}
	s.Tokens.ContextWindow = transcript.ContextWindow(s.Model, cfg.ContextWindow)
	return s, nil
}

// sessionEvents reads a session's events from the project's logs, in
// time order. It returns an error wrapping os.ErrNotExist when there are
// none.
func sessionEvents(ctx context.Context, layout state.Layout, id string) ([]logged, error) {
	if !state.ValidSessionID(id) {
		return nil, fmt.Errorf("%w: %q", state.ErrInvalidSessionID, termtext.Cut(id, 80))
	}
	var events []logged
	needle := []byte(`"` + id + `"`)
	add := func(e *logs.Entry) {
		if e == nil || e.SessionID != id || e.Event == "" {
			return
		}
		ev := logged{at: e.Timestamp, seq: len(events), name: e.Event, input: e.Input}
		if e.Outcome != nil {
			ev.answer, ev.errMsg = e.Outcome.Answer, e.Outcome.Error
		}
		events = append(events, ev)
	}
	err := eachEventLog(layout, func(path string) error {
		return logs.ScanFile(path, func(raw []byte) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if !bytes.Contains(raw, needle) {
				return nil
			}
			var e logs.Entry
			if json.Unmarshal(raw, &e) == nil {
				add(&e)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	// Events whose own log could not take them are kept whole in
	// rejected.json (keepUnlogged).
	err = logs.ScanFile(layout.LogPath(logs.Name(logs.Rejected, "")), func(raw []byte) error {
		if !bytes.Contains(raw, needle) {
			return nil
		}
		var kept struct {
			Entry *logs.Entry `json:"entry"`
		}
		if json.Unmarshal(raw, &kept) == nil {
			add(kept.Entry)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		return nil, fmt.Errorf("session %s: no events in %s: %w", id, layout.LogsDir(), os.ErrNotExist)
	}
	if err := joinAnswers(ctx, layout, id, needle, events); err != nil {
		return nil, err
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].at.Before(events[j].at) })
	return events, nil
}

// denied reports whether a logged answer denied a PreToolUse.
func denied(answer json.RawMessage) bool {
	if len(answer) == 0 {
		return false
	}
	var a hookio.Answer
	if json.Unmarshal(answer, &a) != nil || a.HookSpecificOutput == nil {
		return false
	}
	return a.HookSpecificOutput.PermissionDecision == hookio.PermissionDeny
}

// RebuildState rebuilds a session's state.json from the logs and writes it
// under the session's lock, replacing whatever is there.
func RebuildState(ctx context.Context, layout state.Layout, id string, cfg *config.Config) (*state.Session, error) {
	if cfg == nil {
		cfg = config.Default()
	}
	s, err := Rebuild(ctx, layout, id, cfg)
	if err != nil {
		return nil, err
	}
	return layout.Update(ctx, id, s.UpdatedAt, state.UpdateOptions{Keep: cfg.State.Keep, Lazy: state.AllSections}, func(cur *state.Session, _ bool) error {
		// The logs do not hold the hook's environment: the terminal and
		// the process recorded at the last SessionStart stay.
		term, pid := cur.Terminal, cur.ClaudePID
		*cur = *s
		cur.Terminal, cur.ClaudePID = term, pid
		return nil
	})
}

// readOffsets is how far the session's transcripts have been read in all.
func readOffsets(s *state.Session) int64 {
	n := s.Transcript.Offset
	for _, a := range s.Subagents {
		n += a.Cursor.Offset
	}
	return n
}

// joinAnswers gives each event the answer and error recorded for it in
// answers.json (the hook logs an event before its gates decide): joined
// by event name and timestamp.
func joinAnswers(ctx context.Context, layout state.Layout, id string, needle []byte, events []logged) error {
	type key struct {
		name string
		at   int64
	}
	index := make(map[key]int, len(events))
	for i, e := range events {
		index[key{e.name, e.at.UnixNano()}] = i
	}
	found, err := logs.List(layout.LogsDir(), func(f logs.File) bool { return f.Kind == logs.Answers })
	if err != nil {
		return err
	}
	for _, f := range found {
		err := logs.ScanFile(f.Path, func(raw []byte) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if !bytes.Contains(raw, needle) {
				return nil
			}
			var a logs.Answer
			if json.Unmarshal(raw, &a) != nil || a.SessionID != id {
				return nil
			}
			if i, ok := index[key{a.Event, a.Timestamp.UnixNano()}]; ok {
				if len(a.Answer) > 0 {
					events[i].answer = a.Answer
				}
				if a.Error != "" {
					events[i].errMsg = strings.TrimPrefix(events[i].errMsg+"; "+a.Error, "; ")
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(f.Path), err)
		}
	}
	return nil
}
