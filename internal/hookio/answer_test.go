package hookio

import (
	"encoding/json"
	"testing"
)

func TestAnswerEncode(t *testing.T) {
	f := false
	tests := []struct {
		name string
		a    *Answer
		want string // "" means nothing is printed
	}{
		{"nil", nil, ""},
		{"zero", &Answer{}, ""},
		{"PreToolUse deny", &Answer{HookSpecificOutput: &HookSpecific{HookEventName: PreToolUse,
			PermissionDecision: PermissionDeny, PermissionDecisionReason: "no"}},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`},
		{"Stop block", &Answer{Decision: DecisionBlock, Reason: "keep going"}, `{"decision":"block","reason":"keep going"}`},
		{"SessionStart context", &Answer{HookSpecificOutput: &HookSpecific{HookEventName: SessionStart, AdditionalContext: "ctx"}},
			`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}`},
		{"system message", &Answer{SystemMessage: "careful"}, `{"systemMessage":"careful"}`},
		{"continue false", &Answer{Continue: &f, StopReason: "halt"}, `{"continue":false,"stopReason":"halt"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.a.Encode()
			if tt.want == "" {
				if got != nil || !tt.a.Empty() {
					t.Fatalf("empty answer printed %q", got)
				}
				return
			}
			if tt.a.Empty() {
				t.Error("Empty() = true")
			}
			if string(got) != tt.want+"\n" {
				t.Errorf("Encode() = %q, want %q", got, tt.want+"\n")
			}
			var v map[string]any
			if err := json.Unmarshal(got, &v); err != nil {
				t.Errorf("not one JSON object: %v", err)
			}
		})
	}
}
