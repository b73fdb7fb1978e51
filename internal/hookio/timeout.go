package hookio

import "time"

// Claude Code kills a hook that runs past its timeout and goes on as if it
// had not answered (a PreToolUse then follows the normal permission flow):
// a closed gate that is still deciding then lets the action through. So
// `spcstr init` registers an explicit timeout for each event (Timeout),
// and the gates of one hook share a budget that ends well inside it
// (GateBudget): a gate still deciding at the end of the budget has failed,
// and its fail mode answers in time.

// Timeout is the `timeout` (seconds) spcstr init registers for event name.
// Claude Code's own defaults are 600 s for a command hook, 30 s for
// UserPromptSubmit, 10 s for MessageDisplay, and a shared 1.5 s for
// SessionEnd (raised to the largest registered timeout, at most 60 s).
// spcstr keeps those, gives SessionEnd 10 s (so that its record and the
// transcript archive are not cut off) and SessionStart 60 s (it delays
// every start).
func Timeout(name string) int {
	switch name {
	case UserPromptSubmit:
		return 30
	case MessageDisplay, SessionEnd:
		return 10
	case SessionStart:
		return 60
	case PermissionRequest:
		// It may wait for the dashboard's answer, up to 600 s
		// (internal/permchan.MaxWait): Claude Code must not kill it first.
		return 610
	}
	return 600
}

// GateBudget is how long the gates of one hook for event name may take
// together: Timeout less a reserve for the hook's own work (reading the
// payload, logging, the state update, answering): a tenth of it, at least
// a second.
func GateBudget(name string) time.Duration {
	t := time.Duration(Timeout(name)) * time.Second
	return t - max(t/10, time.Second)
}
