package gate

import (
	"reflect"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// A PermissionRequest is answered by the strictest verdict: a deny (or
// block) over an approval, every reason attributed in gate order as in
// every merge; an allow that does not grant (a notification)
// approves nothing.
func TestMergePermission(t *testing.T) {
	grant := Verdict{Source: "strategy:permission-policy", Decision: Allow, Grant: true, Reason: "allow:0"}
	deny := Verdict{Source: "strategy:permission-policy", Decision: Deny, Reason: "deny:0", Message: "no"}
	block := Verdict{Source: "other", Decision: Block, Message: "stop"}
	note := Verdict{Source: "strategy:notify", Decision: Allow, Reason: "notified:needs_permission"}
	tests := []struct {
		name     string
		verdicts []Verdict
		want     *hookio.PermissionRequestDecision
	}{
		{"nothing", nil, nil},
		{"notification only", []Verdict{note}, nil},
		{"grant", []Verdict{note, grant}, &hookio.PermissionRequestDecision{Behavior: "allow"}},
		{"deny wins", []Verdict{grant, deny}, &hookio.PermissionRequestDecision{Behavior: "deny", Message: "no"}},
		{"block counts as deny", []Verdict{grant, block, deny}, &hookio.PermissionRequestDecision{Behavior: "deny", Message: "[other] stop\n\n[strategy:permission-policy] no"}},
	}
	for _, tt := range tests {
		a := Merge(hookio.PermissionRequest, tt.verdicts)
		var got *hookio.PermissionRequestDecision
		if a.HookSpecificOutput != nil {
			got = a.HookSpecificOutput.Decision
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: decision = %+v, want %+v", tt.name, got, tt.want)
		}
	}
	// A dry-run approval is not one.
	in := &Input{Name: hookio.PermissionRequest, Event: &hookio.Event{ToolName: "Bash"}}
	v := unenforce(grant, in)
	if v.Grant || v.Decision != "" || v.SystemMessage != "spcstr dry run: strategy:permission-policy would allow this Bash call at PermissionRequest (allow:0); not enforced" {
		t.Fatalf("unenforced = %+v", v)
	}
}
