package store

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/text"
)

// Display statuses: a session's condition (state.Of), in the words every
// view shares.
const (
	StatusPermission = string(state.NeedsPermission)
	StatusQuestion   = string(state.AsksQuestion)
	StatusIdle       = string(state.Idle)
	StatusWorking    = string(state.Working)
	StatusFailed     = string(state.Failed)
	StatusEnded      = string(state.Ended)
	StatusGone       = string(state.Gone)
	StatusUnknown    = string(state.Unknown)
)

// NeedsYou reports whether a display status waits for the user's answer.
func NeedsYou(display string) bool { return state.Condition(display).NeedsYou() }

// Limits that keep one damaged or enormous session from filling memory or
// the screen.
const (
	// MaxText bounds any one text (prompt, error, notification) kept.
	MaxText = 2000
	// MaxItems bounds each list kept from a state (the newest are kept).
	MaxItems = 200
)

// Summary is what the sessions list needs about one session.
type Summary struct {
	ID            string
	Status        string // raw state.json status ("" when unknown)
	Branch        string
	Model         string
	Cwd           string
	ProjectDir    string
	CreatedAt     time.Time
	LastAt        time.Time // last event, else updated_at, else file time
	Activity      []state.MinuteCount
	ToolCalls     int
	Errors        int
	Prompts       int
	Agents        int
	AgentsRunning int
	ContextPct    float64
	LastPrompt    string
	// Title names the session (state.json's title; for a state written
	// before titles, its first prompt still kept), one line.
	Title string
	// Tokens is the session's token use, for its cost.
	Tokens state.Tokens
	// ClaudeCost is Claude Code's own figure of the cost, when it gave one.
	ClaudeCost *state.ClaudeCost
	// Inherited is the usage a fork copied from its parent (subtracted
	// from sums of sessions).
	Inherited map[string]state.ModelUsage
	// InheritedCost is a fork's parent's figure at the fork point.
	InheritedCost *state.ClaudeCost
	// Live is Claude Code's live figure from its status line.
	Live *state.LiveCost
	// Wait, Asked, WaitSince and EndReason are state.json's (what the
	// session waits for, since when; why it ended).
	Wait, Asked, EndReason string
	// ClaudePID is the Claude Code process state.json recorded (0: none).
	ClaudePID int
	WaitSince time.Time
	// Asks is what the session waits for while it needs you, in the
	// words of state.Status ("needs permission: Bash `npm publish`").
	Asks string
	// Damaged says why the state could not be shown ("" when it could).
	Damaged string
	// Loaded is false until state.json has been read.
	Loaded bool
}

// Listing is one session folder found on disk.
type Listing struct {
	ID      string
	ModTime time.Time // state.json's, else the folder's
}

// ListSessions lists the session folders, newest state first, with one stat
// per session (no file is read).
func ListSessions(l state.Layout) ([]Listing, error) {
	ids, err := l.SessionIDs()
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	out := make([]Listing, 0, len(ids))
	for _, id := range ids {
		dir, err := l.SessionDir(id)
		if err != nil {
			continue
		}
		var mt time.Time
		if fi, err := os.Stat(filepath.Join(dir, state.StateFile)); err == nil {
			mt = fi.ModTime()
		} else if fi, err := os.Stat(dir); err == nil {
			mt = fi.ModTime()
		}
		out = append(out, Listing{ID: id, ModTime: mt})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ModTime.After(out[j].ModTime) })
	return out, nil
}

// LoadSession reads one session's state.json and returns its summary and the
// state trimmed for display (nil when it could not be read; the summary then
// says why in Damaged).
func LoadSession(l state.Layout, id string, modTime time.Time) (Summary, *state.Session) {
	sum := Summary{ID: id, Loaded: true, LastAt: modTime}
	s, err := l.Load(id)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			sum.Damaged = "no state.json yet"
		default:
			msg := err.Error()
			if p, perr := l.StatePath(id); perr == nil {
				msg = strings.ReplaceAll(msg, p+": ", "")
			}
			sum.Damaged = "state.json unreadable: " + text.Sanitize(OneLine(msg, 200))
		}
		return sum, nil
	}
	Trim(s)
	clean(s)
	return Summarize(s, modTime), s
}

// Summarize builds the list row of a state.
func Summarize(s *state.Session, modTime time.Time) Summary {
	sum := Summary{
		ID: s.SessionID, Status: s.Status, Branch: s.Branch, Model: s.Model,
		Cwd: s.Cwd, ProjectDir: s.ProjectDir, CreatedAt: s.CreatedAt,
		Activity: s.Activity, ToolCalls: s.ToolCalls(), Errors: max(s.ErrorsTotal, len(s.Errors)),
		Prompts: max(s.PromptsTotal, len(s.Prompts)), Agents: max(s.AgentsTotal, len(s.AgentsHistory)),
		ContextPct: s.Tokens.ContextPercent(), Loaded: true, Tokens: s.Tokens, ClaudeCost: s.ClaudeCost, Inherited: s.Inherited, InheritedCost: s.InheritedCost, Live: s.Live,
		Title: OneLine(s.Title, state.TitleBytes),
	}
	if sum.Title == "" {
		for _, p := range s.Prompts {
			if p.Kind == "" {
				sum.Title = OneLine(p.Prompt, state.TitleBytes)
				break
			}
		}
	}
	for i := range s.AgentsHistory {
		if s.AgentsHistory[i].Running() {
			sum.AgentsRunning++
		}
	}
	for i := len(s.Prompts) - 1; i >= 0; i-- {
		if s.Prompts[i].Kind == "" {
			sum.LastPrompt = OneLine(s.Prompts[i].Prompt, 200)
			break
		}
	}
	sum.Wait, sum.Asked, sum.WaitSince, sum.EndReason = s.WaitKind(), OneLine(s.Asked, 300), s.WaitSince, s.EndReason
	sum.ClaudePID = s.ClaudePID
	if st := state.Of(s, state.ProcessAlive); st.Condition.NeedsYou() {
		if st.Detail == "" && len(s.Notifications) > 0 {
			n := s.Notifications[len(s.Notifications)-1]
			st.Detail = OneLine(cmp.Or(n.Message, n.Title, n.Type), 200)
		}
		sum.Asks = text.Sanitize(st.String())
	}
	switch {
	case !s.LastEventAt.IsZero():
		sum.LastAt = s.LastEventAt
	case !s.UpdatedAt.IsZero():
		sum.LastAt = s.UpdatedAt
	default:
		sum.LastAt = modTime
	}
	return sum
}

// Trim cuts a state down to what the dashboard shows: each text to MaxText
// bytes and each list to its newest MaxItems entries, so that a 10 MB prompt
// or a hand-edited file with a million errors costs little to keep and draw.
func Trim(s *state.Session) {
	for i := range s.Prompts {
		if len(s.Prompts[i].Prompt) > MaxText {
			s.Prompts[i].Prompt = termtext.Cut(s.Prompts[i].Prompt, MaxText)
			s.Prompts[i].Truncated = true
		}
	}
	for i := range s.Errors {
		s.Errors[i].Message = termtext.Cut(s.Errors[i].Message, MaxText)
		// Keep only the tool the error came from (a line says
		// "Bash: Exit code 1"), cut to a name's length.
		tool, _ := s.Errors[i].Context["tool"].(string)
		s.Errors[i].Context = nil
		if tool != "" {
			s.Errors[i].Context = map[string]any{"tool": termtext.Cut(tool, 80)}
		}
	}
	for i := range s.Notifications {
		s.Notifications[i].Message = termtext.Cut(s.Notifications[i].Message, MaxText)
	}
	s.Prompts = lastN(s.Prompts, MaxItems)
	s.Errors = lastN(s.Errors, MaxItems)
	s.Notifications = lastN(s.Notifications, MaxItems)
	s.AgentsHistory = lastN(s.AgentsHistory, MaxItems)
	s.Files.New = lastN(s.Files.New, MaxItems)
	s.Files.Edited = lastN(s.Files.Edited, MaxItems)
	s.Files.Read = lastN(s.Files.Read, MaxItems)
	s.Todos = lastN(s.Todos, MaxItems)
	s.Tasks = lastN(s.Tasks, MaxItems)
	s.Transcript = state.TranscriptCursor{}
}

func lastN[T any](xs []T, n int) []T {
	if len(xs) <= n {
		return xs
	}
	return append([]T(nil), xs[len(xs)-n:]...)
}

// DisplayStatus is the status to show (state.Of): the state's own, gone
// when its Claude Code process is gone (the registry's entry says which
// process; without an entry, the one state.json recorded), unknown when
// neither names one for a session that did not end (spcstr cannot tell).
func DisplayStatus(sum Summary, reg registry.File, alive func(pid int) bool) string {
	if !sum.Loaded || sum.Damaged != "" && sum.Status == "" {
		return StatusUnknown
	}
	proc := state.ProcessUnknown
	pid := sum.ClaudePID
	if e, ok := reg.Lookup(sum.ID); ok {
		proc, pid = state.ProcessAlive, e.PPID
	}
	if pid > 0 {
		proc = state.ProcessAlive
		if !alive(pid) {
			proc = state.ProcessGone
		}
	}
	s := &state.Session{Status: sum.Status, Wait: sum.Wait, Asked: sum.Asked, WaitSince: sum.WaitSince, EndReason: sum.EndReason}
	return string(state.Of(s, proc).Condition)
}

// oneLine flattens s to one line of at most n bytes.
func OneLine(s string, n int) string {
	if len(s) > 4*n {
		s = s[:4*n]
	}
	s = strings.Join(strings.Fields(s), " ")
	return termtext.Cut(s, n)
}

// CostState is the part of a session's state its cost is figured from
// (pricing.Table.Session and Summed), for the rows and sums that keep
// only a summary.
func (s Summary) CostState() *state.Session {
	return &state.Session{Tokens: s.Tokens, Model: s.Model, ClaudeCost: s.ClaudeCost, Inherited: s.Inherited, InheritedCost: s.InheritedCost, Live: s.Live}
}
