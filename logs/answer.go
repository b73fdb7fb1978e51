package logs

import (
	"encoding/json"
	"time"
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
