package store

import (
	"bytes"
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/logs"
)

// Event is one log entry, reduced to a line of the event tail.
type Event struct {
	At      time.Time
	Session string
	Event   string // CamelCase event name, or "Decision"
	Tool    string
	Detail  string // command, path, prompt, reason... on one line
	Agent   string // subagent type when fired inside a subagent
	// Error is the event's error text when Detail shows something else
	// (a failed command's error), for finding events by their error.
	Error  string
	Failed bool // a failure, an error or a deny/block decision
	// FailedOpen marks a gate decision that failed open: the gate could
	// not decide and let the action through (the header counts them).
	FailedOpen bool
	// Gate is a decision's record (nil for an event): what the gate
	// decided, on which hook, what became of it and its own message.
	Gate *Decision
}

// tailWindow is how much of each log's end is read at startup.
const tailWindow = 128 << 10

// LogFile reports whether name (a file in .spcstr/logs) is a log the tail
// follows: a live (not rotated) log of session entries, events or
// decisions (logs.Classify says which files are logs).
func LogFile(name string) bool {
	f := logs.Classify(name)
	return f.Kind.Session() && f.Segment == 0
}

// LogPaths lists the logs in dir the tail follows.
func LogPaths(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && LogFile(e.Name()) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// Offsets remembers, per log path, the read position for logs.Tail.
type Offsets map[string]int64

// TailStart reads the end of each log in dir (logs.TailWindow) and returns
// their entries (oldest first) and the offsets to follow the logs from. It
// never reads a whole log.
func TailStart(dir string) ([]Event, Offsets) {
	offs := Offsets{}
	var evs []Event
	for _, p := range LogPaths(dir) {
		next, _ := logs.TailWindow(p, tailWindow, collect(&evs))
		offs[p] = next
	}
	SortEvents(evs)
	return evs, offs
}

// TailNew reads the bytes appended to the given logs since their offsets and
// returns the new entries and the updated offsets (a copy). A log not seen
// before is read from the start of its tail window.
func TailNew(paths []string, offs Offsets) ([]Event, Offsets) {
	next := Offsets{}
	var evs []Event
	for _, p := range paths {
		var n int64
		var err error
		if off, seen := offs[p]; seen {
			n, _, _ = logs.Tail(p, off, collect(&evs)) // a log that went away keeps its offset
		} else {
			n, err = logs.TailWindow(p, tailWindow, collect(&evs))
		}
		if err != nil {
			continue
		}
		next[p] = n
	}
	SortEvents(evs)
	return evs, next
}

// collect returns a reader callback appending the entries it parses to evs.
func collect(evs *[]Event) func(raw []byte) error {
	return func(raw []byte) error {
		if ev, ok := ParseEvent(raw); ok {
			*evs = append(*evs, ev)
		}
		return nil
	}
}

// History looks further back in every log of dir for one session's newest n
// events, reading backwards (logs.Backward) at most about maxBytes of each
// log. It is used when a session is selected whose events are older than
// the startup window.
func History(dir, session string, n int, maxBytes int64) []Event {
	needle := []byte(`"session_id":` + jsonString(session))
	var all []Event
	for _, p := range LogPaths(dir) {
		found := 0
		_ = logs.Backward(p, maxBytes, func(raw []byte) error {
			if !bytes.Contains(raw, needle) {
				return nil
			}
			if ev, ok := ParseEvent(raw); ok {
				all = append(all, ev)
				if found++; found >= n {
					return logs.ErrStop
				}
			}
			return nil
		})
	}
	SortEvents(all)
	if len(all) > n {
		all = all[len(all)-n:]
	}
	return all
}

// SortEvents orders events by time, oldest first.
func SortEvents(evs []Event) {
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].At.Before(evs[j].At) })
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// rawDecision is what the event tail shows of a decisions.json record.
type rawDecision struct {
	Source   string `json:"source"`
	Hook     string `json:"hook"`
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Message  string `json:"message"`
	DryRun   bool   `json:"dry_run"`
	Error    string `json:"error"` // a gate's own error
	// Enforcement: enforced, dry-run, failed-open, failed-closed, gave-way
	Enforcement string `json:"enforcement"`
	// allows that warned the user or added context
	SystemMessage string `json:"system_message"`
	Context       string `json:"context"`
}

type rawInput struct {
	ToolName  string `json:"tool_name"`
	ToolInput struct {
		Command     string `json:"command"`
		FilePath    string `json:"file_path"`
		Path        string `json:"path"`
		Pattern     string `json:"pattern"`
		Description string `json:"description"`
		Subagent    string `json:"subagent_type"`
		Skill       string `json:"skill"`
		Query       string `json:"query"`
		Subject     string `json:"subject"`
		TaskID      string `json:"taskId"`
		Status      string `json:"status"`
	} `json:"tool_input"`
	Prompt       string `json:"prompt"`
	AgentType    string `json:"agent_type"`
	Source       string `json:"source"`
	Reason       string `json:"reason"`
	Message      string `json:"message"`
	Error        string `json:"error"`
	Trigger      string `json:"trigger"`
	TaskSubject  string `json:"task_subject"`
	LastMessage  string `json:"last_assistant_message"`
	Notification string `json:"notification_type"`
}

func outcomeError(h *logs.Head) string {
	if h.Outcome == nil {
		return ""
	}
	return h.Outcome.Error
}

// ParseEvent reduces one raw log entry to an Event, its text made safe to
// print. It is lenient: fields of the wrong type are ignored, and only an
// entry without a time and a session is refused.
func ParseEvent(raw []byte) (Event, bool) {
	ev, ok := parseEvent(raw)
	if ok {
		cleanEvent(&ev)
	}
	return ev, ok
}

func parseEvent(raw []byte) (Event, bool) {
	h, ok := logs.ReadHead(raw)
	if !ok || h.SessionID == "" || h.Timestamp.IsZero() {
		return Event{}, false
	}
	ev := Event{At: h.Timestamp, Session: h.SessionID, Event: h.Event}
	if h.Event == "" && h.Decision != "" {
		var e rawDecision
		_ = h.Decode(&e) // a field of another type is left empty
		return decisionEvent(ev, &e), true
	}
	var in rawInput
	_ = h.Payload(&in)
	ev.Tool = in.ToolName
	ev.Agent = in.AgentType
	ti := in.ToolInput
	var d string
	switch {
	case ti.Command != "":
		d = ti.Command
	case ti.FilePath != "":
		d = ti.FilePath
	case ti.Subagent != "" || (in.ToolName == "Agent" || in.ToolName == "Task") && ti.Description != "":
		d = strings.TrimSpace(ti.Subagent + ": " + ti.Description)
	case ti.Pattern != "":
		d = ti.Pattern
		if ti.Path != "" {
			d += " in " + ti.Path
		}
	case ti.Skill != "":
		d = ti.Skill
	case ti.Query != "":
		d = ti.Query
	case ti.Subject != "":
		d = ti.Subject
	case ti.TaskID != "":
		d = "#" + ti.TaskID + " " + ti.Status
	case in.Prompt != "":
		d = in.Prompt
	case in.Error != "":
		d = in.Error
	case in.Message != "":
		d = in.Message
	case in.TaskSubject != "":
		d = in.TaskSubject
	case in.Source != "":
		d = in.Source
	case in.Reason != "":
		d = in.Reason
	case in.Trigger != "":
		d = in.Trigger
	case in.LastMessage != "":
		d = in.LastMessage
	}
	if h.Event == "SubagentStart" || h.Event == "SubagentStop" {
		ev.Agent = ""
		if in.AgentType != "" {
			d = strings.TrimSpace(in.AgentType + " " + OneLine(in.LastMessage, 120))
		}
	}
	ev.Detail = OneLine(d, 300)
	if errText := cmp.Or(in.Error, outcomeError(&h)); errText != "" && errText != d {
		ev.Error = OneLine(errText, 300)
	}
	ev.Failed = strings.HasSuffix(h.Event, "Failure") || in.Error != "" || outcomeError(&h) != ""
	return ev, true
}

// entrySearchBytes bounds how far back in each log FindEntry looks.
const entrySearchBytes = 32 << 20

// maxEntryBytes bounds the entry FindEntry returns (a log entry's payload
// fields are capped when written; this is a second bound on what is kept).
const maxEntryBytes = 4 << 20

// FindEntry looks in the logs of dir, newest entries first and at most
// about 32 MiB back in each, for the raw entry ev was read from, so that
// it can be shown in full. It reports false when the entry is no longer
// there (rotated away, further back, or not from a log).
func FindEntry(dir string, ev Event) ([]byte, bool) {
	needle := []byte(`"session_id":` + jsonString(ev.Session))
	var found []byte
	for _, p := range LogPaths(dir) {
		_ = logs.Backward(p, entrySearchBytes, func(raw []byte) error {
			if len(raw) > maxEntryBytes || !bytes.Contains(raw, needle) {
				return nil
			}
			// The same instant, session, event and tool: the entry (the
			// timeline's events carry no Detail to compare).
			e, ok := QuickEvent(raw)
			if ok && e.At.Equal(ev.At) && e.Session == ev.Session && e.Event == ev.Event && e.Tool == ev.Tool {
				found = bytes.Clone(raw)
				return logs.ErrStop
			}
			return nil
		})
		if found != nil {
			return found, true
		}
	}
	return nil, false
}

// Since reads one session's events from the logs of dir at or after since,
// oldest first, at most max (the newest). Each log is read backwards and
// left at its first entry older than since (logs are appended in time
// order), so the cost follows the span asked for, not the log's size.
func Since(dir, session string, since time.Time, max int) []Event {
	needle := []byte(`"session_id":` + jsonString(session))
	var all []Event
	for _, p := range LogPaths(dir) {
		found := 0
		_ = logs.Backward(p, 1<<40, func(raw []byte) error {
			if !bytes.Contains(raw, needle) {
				if h, ok := logs.ReadHead(raw); ok && !h.Timestamp.IsZero() && h.Timestamp.Before(since) {
					return logs.ErrStop
				}
				return nil
			}
			ev, ok := QuickEvent(raw)
			if !ok {
				return nil
			}
			if ev.At.Before(since) {
				return logs.ErrStop
			}
			all = append(all, ev)
			if found++; found >= max {
				return logs.ErrStop
			}
			return nil
		})
	}
	SortEvents(all)
	if len(all) > max {
		all = all[len(all)-max:]
	}
	return all
}
