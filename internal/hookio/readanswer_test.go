package hookio

import (
	"strings"
	"testing"
)

// ReadAnswer reads keys exactly, as Claude Code does.
func TestReadAnswer(t *testing.T) {
	for _, tt := range []struct {
		in, decision, reason, perm, err string
	}{
		{in: `{"decision":"block","Decision":"approve","reason":"r"}`, decision: "block", reason: "r"},
		{in: `{"Decision":"approve","decision":"block"}`, decision: "block"},
		{in: `{"Decision":"block","REASON":"x"}`},
		{in: `{"decision":"approve","decision":"block"}`, decision: "block"},
		{in: `{"decision":null,"reason":null}`},
		{in: `{"hookSpecificOutput":{"permissionDecision":"deny","PermissionDecision":"allow"}}`, perm: "deny"},
		{in: `{"HookSpecificOutput":{"permissionDecision":"deny"}}`},
		{in: `{"decision":1}`, err: `"decision": want a string`},
		{in: `{"continue":"no"}`, err: `"continue"`},
		{in: `{"hookSpecificOutput":[]}`, err: "hookSpecificOutput"},
		{in: `{} {}`, err: "more than one"},
		{in: `[]`, err: "invalid JSON"},
		{in: `null`, err: "not a JSON object"},
	} {
		a, err := ReadAnswer([]byte(tt.in))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		perm := ""
		if a.HookSpecificOutput != nil {
			perm = a.HookSpecificOutput.PermissionDecision
		}
		if a.Decision != tt.decision || a.Reason != tt.reason || perm != tt.perm {
			t.Errorf("%s: got decision %q reason %q permission %q", tt.in, a.Decision, a.Reason, perm)
		}
	}
}
