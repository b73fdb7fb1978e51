package gate

import (
	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// mergePermission answers a PermissionRequest: the strictest decision
// wins, as everywhere. Any deny answers "deny" with every deny's message;
// otherwise an allow that grants (Verdict.Grant) answers "allow"; otherwise
// nothing is decided and Claude Code shows its dialog.
func mergePermission(hso func() *hookio.HookSpecific, verdicts []Verdict, denies []verdictText) {
	if len(denies) > 0 {
		hso().Decision = &hookio.PermissionRequestDecision{Behavior: "deny", Message: join(denies, true)}
		return
	}
	for _, v := range verdicts {
		if v.Decision == Allow && v.Grant {
			hso().Decision = &hookio.PermissionRequestDecision{Behavior: "allow"}
			return
		}
	}
}
