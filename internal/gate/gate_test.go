package gate

import (
	"encoding/json"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/hookio"
)

func TestMerge(t *testing.T) {
	tests := []struct {
		name     string
		event    string
		verdicts []Verdict
		want     string // encoded answer, "" for none
	}{
		{"no verdicts", hookio.PreToolUse, nil, ""},
		{"allow only", hookio.PreToolUse, []Verdict{{Source: "a", Decision: Allow}}, ""},
		{"one deny", hookio.PreToolUse, []Verdict{{Source: "req", Decision: Deny, Message: "plan first"}},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"plan first"}}`},
		{"deny and block merge on PreToolUse, every reason kept in order", hookio.PreToolUse, []Verdict{
			{Source: "a", Decision: Block, Message: "B"},
			{Source: "b", Decision: Allow, Message: "ignored"},
			{Source: "c", Decision: Deny, Message: "D1"},
			{Source: "d", Decision: Deny, Message: "D2"},
		}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"[a] B\n\n[c] D1\n\n[d] D2"}}`},
		{"deny wins over ask; ask alone asks", hookio.PreToolUse, []Verdict{
			{Source: "a", Decision: Ask, Message: "sure?"},
			{Source: "b", Decision: Deny, Message: "no"},
		}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`},
		{"ask over allow", hookio.PreToolUse, []Verdict{
			{Source: "a", Decision: Allow},
			{Source: "b", Decision: Ask, Message: "sure?"},
			{Source: "c", Decision: Ask, Message: "really?"},
		}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"[b] sure?\n\n[c] really?"}}`},
		{"one gate's two reasons are not attributed", hookio.Stop, []Verdict{
			{Source: "a", Decision: Block, Message: "x"}, {Source: "a", Decision: Block, Message: "y"},
		}, `{"decision":"block","reason":"x\n\ny"}`},
		{"ask means nothing at Stop", hookio.Stop, []Verdict{{Source: "a", Decision: Ask, Message: "m"}}, ""},
		{"deny with context on PreToolUse", hookio.PreToolUse, []Verdict{
			{Decision: Deny, Message: "no", Context: "ctx"},
		}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no","additionalContext":"ctx"}}`},
		{"Stop blocks merge into one decision", hookio.Stop, []Verdict{
			{Source: "req", Decision: Block, Message: "tests not run"},
			{Source: "feedback", Decision: Block, Message: "review pending"},
		}, `{"decision":"block","reason":"[req] tests not run\n\n[feedback] review pending"}`},
		{"SubagentStop block", hookio.SubagentStop, []Verdict{{Decision: Block, Message: "m"}},
			`{"decision":"block","reason":"m"}`},
		{"deny on Stop counts as block", hookio.Stop, []Verdict{{Decision: Deny, Message: "m"}},
			`{"decision":"block","reason":"m"}`},
		{"Stop ignores context", hookio.Stop, []Verdict{{Context: "not for stop"}}, ""},
		{"Stop system message", hookio.Stop, []Verdict{{SystemMessage: "s1"}, {SystemMessage: "s2"}},
			`{"systemMessage":"s1\n\ns2"}`},
		{"SessionStart contexts join", hookio.SessionStart, []Verdict{{Context: "c1"}, {Context: "c2"}},
			`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"c1\n\nc2"}}`},
		{"UserPromptSubmit block and context", hookio.UserPromptSubmit, []Verdict{{Decision: Block, Message: "no"}, {Context: "c"}},
			`{"decision":"block","reason":"no","hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"c"}}`},
		{"Notification cannot block", hookio.Notification, []Verdict{{Decision: Block, Message: "m", Context: "c"}}, ""},
		{"PostToolUseFailure takes context, not decisions", hookio.PostToolUseFailure, []Verdict{{Decision: Block, Message: "m", Context: "c"}},
			`{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"c"}}`},
		{"escalated allow carries its system message", hookio.Stop, []Verdict{{Decision: Allow, Escalated: true, SystemMessage: "unmet: x"}},
			`{"systemMessage":"unmet: x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Merge(tt.event, tt.verdicts)
			got := string(a.Encode())
			if tt.want == "" {
				if got != "" {
					t.Fatalf("Merge printed %s", got)
				}
				return
			}
			if got != tt.want+"\n" {
				t.Errorf("Merge =\n%s\nwant\n%s", got, tt.want)
			}
			if a.HookSpecificOutput != nil && a.HookSpecificOutput.HookEventName != tt.event {
				t.Errorf("hookEventName = %q", a.HookSpecificOutput.HookEventName)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(got), &m); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestCanBlockMatchesMerge(t *testing.T) {
	for _, ev := range hookio.KnownEvents {
		a := Merge(ev, []Verdict{{Decision: Block, Message: "m"}})
		blocks := a.Decision == hookio.DecisionBlock ||
			(a.HookSpecificOutput != nil && a.HookSpecificOutput.PermissionDecision == hookio.PermissionDeny)
		if blocks != CanBlock(ev) {
			t.Errorf("%s: Merge blocks=%v, CanBlock=%v", ev, blocks, CanBlock(ev))
		}
	}
}
