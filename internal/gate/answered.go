package gate

import (
	"time"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/observe"
)

// Who answered a permission prompt that no gate decided: the user, in the
// dashboard or in Claude Code's own dialog. They are the Source of the
// decision record the answer leaves (UserAnswer).
const (
	SourceDashboard = "dashboard"
	SourceTerminal  = "terminal"
)

// Reasons of a user's answer.
const (
	ReasonAnsweredHere   = "answered in the dashboard"
	ReasonAlwaysAllowed  = "always allowed in the dashboard (Claude Code's suggested rule applied)"
	ReasonAnsweredInTerm = "answered in the terminal (the dashboard's card was withdrawn)"
)

// UserAnswer is the decision record of a permission prompt the user
// answered: by (SourceDashboard or SourceTerminal), decision (Allow, Deny,
// or "" when the terminal's answer is not known), the message a deny sent
// to Claude, and how long the prompt waited.
func UserAnswer(requestID, sessionID string, at time.Time, by, decision, reason, message string, waited time.Duration) Record {
	return Record{
		RequestID: requestID, SessionID: sessionID, Timestamp: at.UTC(),
		Source: by, Hook: hookio.PermissionRequest, Decision: decision, Reason: reason,
		Message: observe.Cut(message, recordText), DurationMS: float64(waited.Microseconds()) / 1000, Enforcement: Enforced,
	}
}
