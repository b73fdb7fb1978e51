package gate

import "github.com/dylan-gluck/spcstr/internal/hookio"

// Outcome says, in words a user reads, what became of a recorded decision
// for the hook it answered: what Claude Code did with it (a Stop block
// kept Claude working; a PreToolUse deny refused the tool call), or why it
// had no effect (dry run, the gate failed open, the stop cap let Claude
// stop). hook is the CamelCase event name, decision and enforcement are a
// Record's. The dashboard and the export show it beside the gate's own
// message.
func Outcome(hook, decision, enforcement string) string {
	switch enforcement {
	case DryRunned:
		if decision == Deny || decision == Block || decision == Ask {
			return "not enforced: dry run, logged only (" + wouldVerb(decision) + ")"
		}
		return "dry run: logged only"
	case FailedOpen:
		return "not enforced: the gate could not decide and failed open, so the action went ahead"
	case GaveWay:
		return "not enforced: the stop cap let Claude stop after repeated blocked Stops without progress"
	case FailedClosed:
		return "the gate could not decide and its fail_mode is closed: " + effect(hook, decision)
	}
	if decision == Escalated {
		return "not enforced: the stop cap let Claude stop after repeated blocked Stops without progress"
	}
	return effect(hook, decision)
}

func wouldVerb(decision string) string {
	switch decision {
	case Deny:
		return "it would have denied"
	case Ask:
		return "it would have asked the user"
	}
	return "it would have blocked"
}

// effect is what Claude Code does with an enforced decision on hook
// (the hooks protocol's table of blocking events).
func effect(hook, decision string) string {
	switch decision {
	case Allow, "":
		return "allowed"
	case Ask:
		return "Claude Code asked the user to confirm the tool call"
	}
	if decision != Deny && decision != Block {
		return decision
	}
	switch hook {
	case hookio.PreToolUse:
		return "the tool call was refused; Claude was given the reason"
	case hookio.Stop:
		return "Claude was kept working: the reason became its next instruction"
	case hookio.SubagentStop:
		return "the subagent was kept working: the reason became its next instruction"
	case hookio.PostToolUse:
		return "the tool had already run; Claude was given the reason beside its result"
	case hookio.UserPromptSubmit:
		return "the prompt was refused and erased; the reason was shown to the user"
	case hookio.PostToolBatch:
		return "Claude's loop was stopped after the batch of tool calls"
	case hookio.TaskCreated:
		return "the task's creation was rolled back"
	case hookio.PreCompact:
		return "the compaction was prevented"
	case hookio.ConfigChange:
		return "the settings change was blocked"
	}
	return "blocked; " + hook + " cannot be blocked, so Claude Code went on"
}
