package gate

import (
	"fmt"

	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// unenforce turns a dry-run deny or block into what the user should see
// instead: no decision, and one system message saying what the gate WOULD
// have done ("spcstr dry run: strategy:token-budget would deny this Agent
// call at PreToolUse (context-over-limit:87%); not enforced"). The
// verdict's own system message and context go: for a deny or block they
// announce the enforced decision ("agent spawn denied … Run /compact"),
// which did not happen. This is the one place that keeps dry-run from
// misleading; gates word their messages for the enforced case and put
// anything that holds either way in a verdict of its own.
func unenforce(v Verdict, in *Input) Verdict {
	verb := "block"
	switch {
	case v.Decision == Deny:
		verb = "deny"
	case v.Decision == Ask:
		verb = "ask the user about"
	case v.Grant:
		verb = "allow"
	}
	what := in.Name
	switch {
	case in.Name == hookio.Stop:
		what = "this stop"
	case in.Name == hookio.SubagentStop:
		what = "this subagent's stop"
	case in.Event != nil && in.Event.ToolName != "" && isToolEvent(in.Name):
		what = fmt.Sprintf("this %s call at %s", in.Event.ToolName, in.Name)
	}
	msg := fmt.Sprintf("spcstr dry run: %s would %s %s", v.Source, verb, what)
	if v.Reason != "" {
		msg += " (" + v.Reason + ")"
	}
	// Not the message Claude would read: it speaks of the decision as
	// taken ("… is blocked until …"). decisions.json keeps it.
	msg += "; not enforced"
	v.Decision, v.Grant, v.Context, v.SystemMessage = "", false, "", msg
	return v
}

// WouldMessage is what unenforce shows the user for a dry-run deny or block
// of verdict v on the event of in (`spcstr strategy dry-run` prints it too).
func WouldMessage(v Verdict, in *Input) string {
	if !enforces(v) {
		return ""
	}
	return unenforce(v, in).SystemMessage
}

func isToolEvent(name string) bool {
	switch name {
	case hookio.PreToolUse, hookio.PostToolUse, hookio.PostToolUseFailure, hookio.PermissionRequest:
		return true
	}
	return false
}

// enforces reports whether a verdict changes what Claude Code does: a
// deny, block or ask, or a permission grant (a dry-run verdict's is
// dropped).
func enforces(v Verdict) bool {
	return v.Decision == Deny || v.Decision == Block || v.Decision == Ask || v.Grant
}
