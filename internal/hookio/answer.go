package hookio

import (
	"encoding/json"
)

// Answer is the one JSON object spcstr prints on stdout when it has something
// to tell Claude Code (docs/answers.md). The zero Answer means "no
// opinion" and is never printed.
type Answer struct {
	Continue           *bool         `json:"continue,omitempty"`
	StopReason         string        `json:"stopReason,omitempty"`
	SystemMessage      string        `json:"systemMessage,omitempty"`
	Decision           string        `json:"decision,omitempty"`
	Reason             string        `json:"reason,omitempty"`
	HookSpecificOutput *HookSpecific `json:"hookSpecificOutput,omitempty"`
}

// HookSpecific is the event-specific part of an Answer. HookEventName must
// equal the event being answered.
type HookSpecific struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
	// Decision answers a PermissionRequest: allow or deny the call
	// without the user's dialog.
	Decision *PermissionRequestDecision `json:"decision,omitempty"`
}

// PermissionRequestDecision is hookSpecificOutput.decision of a
// PermissionRequest answer: Behavior "allow" or "deny"; Message tells
// Claude why a call was denied.
type PermissionRequestDecision struct {
	Behavior string `json:"behavior"`
	Message  string `json:"message,omitempty"`
	// UpdatedPermissions applies permission rules with an allow (the
	// dashboard's "always allow" passes Claude Code's own
	// permission_suggestions back, as the dialog's "don't ask again" does).
	UpdatedPermissions json.RawMessage `json:"updatedPermissions,omitempty"`
}

// Empty reports whether the answer says nothing.
func (a *Answer) Empty() bool {
	return a == nil || (a.Continue == nil && a.StopReason == "" && a.SystemMessage == "" &&
		a.Decision == "" && a.Reason == "" && a.HookSpecificOutput == nil)
}

// Encode returns the answer as one line of JSON, or nil when it is empty.
func (a *Answer) Encode() []byte {
	if a.Empty() {
		return nil
	}
	b, err := json.Marshal(a)
	if err != nil {
		return nil
	}
	return append(b, '\n')
}

// Permission decisions of PreToolUse.
const (
	PermissionAllow = "allow"
	PermissionDeny  = "deny"
	PermissionAsk   = "ask"
)

// DecisionBlock is the only value of the top-level decision field.
const DecisionBlock = "block"
