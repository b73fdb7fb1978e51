package state

import (
	"strings"
	"time"
)

// What a session waits for (Session.Wait), set by the recorder.
const (
	WaitPermission = "permission"
	WaitQuestion   = "question"
	WaitIdle       = "idle"
	WaitFailed     = "failed"
)

// Condition is what a session is doing, in the words the dashboard's rows
// and header, its notifications and `spcstr export` all use: this is
// their one home.
type Condition string

// The conditions.
const (
	NeedsPermission Condition = "needs permission" // a permission dialog waits for you
	AsksQuestion    Condition = "asks a question"  // AskUserQuestion, an MCP elicitation
	Idle            Condition = "idle"             // waiting for your next prompt
	Working         Condition = "working"
	Failed          Condition = "failed" // the turn ended on an API error (StopFailure)
	Ended           Condition = "ended"
	Gone            Condition = "gone"    // its Claude Code process vanished without SessionEnd
	Unknown         Condition = "unknown" // spcstr cannot tell
)

// Conditions lists every condition, the ones that need you first.
var Conditions = []Condition{NeedsPermission, AsksQuestion, Idle, Working, Failed, Ended, Gone, Unknown}

// Meaning says what a condition means, for the help's legend and the
// export's schema.
func (c Condition) Meaning() string {
	switch c {
	case NeedsPermission:
		return "a permission prompt waits for your answer (which tool, which command or file)"
	case AsksQuestion:
		return "Claude asks you a question (AskUserQuestion, an MCP elicitation)"
	case Idle:
		return "waiting for your next prompt"
	case Working:
		return "Claude is working"
	case Failed:
		return "the turn ended on an API error"
	case Ended:
		return "the session ended (and why)"
	case Gone:
		return "its Claude Code process is gone without ending the session"
	}
	return "spcstr cannot tell (no state yet, or no registry entry for a session not ended)"
}

// NeedsYou reports whether the session waits for an answer from you
// (follow mode goes there, the header counts it, a notification says it).
func (c Condition) NeedsYou() bool { return c == NeedsPermission || c == AsksQuestion }

// Process is what the caller knows of a session's Claude Code process.
type Process int

// Process states: the registry has no entry (or none was read), its
// process runs, its process is gone.
const (
	ProcessUnknown Process = iota
	ProcessAlive
	ProcessGone
)

// Status is a session's condition and what goes with it.
type Status struct {
	Condition Condition
	// Detail is what it waits for ("Bash `npm publish`"), the API error,
	// or why it ended ("" when there is nothing to add).
	Detail string
	// Since is when the wait began (zero when not waiting or not known).
	Since time.Time
}

// String is the condition with its detail: "needs permission: Bash `ls`".
func (s Status) String() string {
	if s.Detail == "" {
		return string(s.Condition)
	}
	return string(s.Condition) + ": " + s.Detail
}

// WaitKind is what the session waits for: Wait, or for a state written
// before it was kept, what its last event or notification says.
func (s *Session) WaitKind() string {
	if s.Wait != "" || s.Status != StatusNeedsInput {
		return s.Wait
	}
	if s.LastEvent == "PermissionRequest" {
		return WaitPermission
	}
	if n := len(s.Notifications); n > 0 {
		switch t := s.Notifications[n-1]; {
		case t.Type == "permission_prompt", t.Type == "" && strings.Contains(strings.ToLower(t.Message), "permission"):
			return WaitPermission
		case t.Type == "idle_prompt", t.Type == "":
			return WaitIdle
		}
		return WaitQuestion
	}
	return WaitPermission
}

// Of is the status of a session from its state (nil: not read) and its
// process.
func Of(s *Session, proc Process) Status {
	if s == nil || s.Status == "" {
		return Status{Condition: Unknown}
	}
	if s.Status == StatusEnded {
		return Status{Condition: Ended, Detail: s.EndReason}
	}
	switch proc {
	case ProcessGone:
		return Status{Condition: Gone}
	case ProcessUnknown:
		return Status{Condition: Unknown}
	}
	st := Status{Detail: s.Asked, Since: s.WaitSince}
	switch s.Status {
	case StatusWorking:
		return Status{Condition: Working}
	case StatusNeedsInput:
		switch s.WaitKind() {
		case WaitQuestion:
			st.Condition = AsksQuestion
		case WaitIdle:
			st.Condition, st.Detail = Idle, ""
		default:
			st.Condition = NeedsPermission
		}
	case StatusWaiting:
		st.Condition, st.Detail = Idle, ""
		if s.Wait == WaitFailed {
			st.Condition, st.Detail = Failed, s.Asked
		}
	default:
		return Status{Condition: Unknown}
	}
	return st
}
