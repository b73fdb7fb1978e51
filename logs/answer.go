package logs

import (
	"encoding/json"
	"time"

	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// Answer is one line of answers.json: what the hook answered to an event
// whose gates ran. The hook appends the event to its own log before any
// gate runs (a hook killed by Claude Code's timeout still leaves it), then
// this record and the gates' decision records (decisions.json) once they
// have decided. Timestamp, SessionID and Event are the event entry's, so
// that the two join.
type Answer struct {
	Timestamp time.Time `json:"timestamp"`
	SessionID string    `json:"session_id"`
	Event     string    `json:"event"`
	ToolUseID string    `json:"tool_use_id,omitempty"`
	// Answer is what the hook printed (absent: nothing).
	Answer json.RawMessage `json:"answer,omitempty"`
	// Decisions counts the decision records of this event.
	Decisions int `json:"decisions,omitempty"`
	// DurationMS is how long the gates took.
	DurationMS float64 `json:"duration_ms"`
	// Error is what went wrong while deciding (a state that could not be
	// read or updated, a gate that failed).
	Error string `json:"error,omitempty"`
}

// ReadAnswer reads raw, one line of answers.json, as ReadHead reads an
// entry (the one read of a log line) and then whole into an Answer. ok is
// false when it is not an answer record: not a JSON object of that shape,
// or without a session. Answer shares the bytes of raw.
func ReadAnswer(raw []byte) (a Answer, ok bool) {
	h, ok := ReadHead(raw)
	if !ok || h.SessionID == "" || h.Event == "" {
		return Answer{}, false
	}
	if h.Decode(&a) != nil {
		return Answer{}, false
	}
	a.SessionID, a.Event = h.SessionID, h.Event // made valid UTF-8 by ReadHead
	return a, true
}

// AnswerKey joins an answer record to the event it answered: the event
// entry's session, CamelCase event name, time (UnixNano) and the tool
// call's id (empty for events without one).
type AnswerKey struct {
	SessionID, Event, ToolUseID string
	At                          int64
}

// Key is the answer's join key.
func (a *Answer) Key() AnswerKey {
	return AnswerKey{SessionID: a.SessionID, Event: hookio.CamelName(a.Event), ToolUseID: a.ToolUseID, At: a.Timestamp.UnixNano()}
}

// EventKey is the join key of an event entry: its session, event name,
// time and its payload's tool_use_id ("" when it has none).
func EventKey(sessionID, event, toolUseID string, at time.Time) AnswerKey {
	return AnswerKey{SessionID: sessionID, Event: hookio.CamelName(event), ToolUseID: toolUseID, At: at.UnixNano()}
}
