package hookio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ReadAnswer decodes the JSON answer of a hook command (a command
// strategy's stdout) the way Claude Code reads it: keys match exactly,
// case and all, so `{"decision":"block","Decision":"approve"}` blocks
// (encoding/json would match both keys case-insensitively and keep the
// last). Of a key given twice the last wins, as in JavaScript's
// JSON.parse. A value of the wrong type for a key spcstr reads is an error;
// null is absent; keys spcstr does not read are ignored. data must be one
// JSON object and nothing after it.
func ReadAnswer(data []byte) (*Answer, error) {
	top, err := exactObject(data)
	if err != nil {
		return nil, err
	}
	a := &Answer{}
	for key, dst := range map[string]*string{"decision": &a.Decision, "reason": &a.Reason,
		"systemMessage": &a.SystemMessage, "stopReason": &a.StopReason} {
		if err := exactString(top, key, dst); err != nil {
			return nil, err
		}
	}
	if raw, ok := top["continue"]; ok && !isNull(raw) {
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, errors.New(`"continue": want true or false`)
		}
		a.Continue = &b
	}
	raw, ok := top["hookSpecificOutput"]
	if !ok || isNull(raw) {
		return a, nil
	}
	spec, err := exactObject(raw)
	if err != nil {
		return nil, fmt.Errorf(`"hookSpecificOutput": %w`, err)
	}
	h := &HookSpecific{}
	for key, dst := range map[string]*string{"hookEventName": &h.HookEventName, "permissionDecision": &h.PermissionDecision,
		"permissionDecisionReason": &h.PermissionDecisionReason, "additionalContext": &h.AdditionalContext} {
		if err := exactString(spec, key, dst); err != nil {
			return nil, fmt.Errorf(`"hookSpecificOutput": %w`, err)
		}
	}
	a.HookSpecificOutput = h
	return a, nil
}

// exactObject decodes one JSON object into its members by exact key.
func exactObject(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var m map[string]json.RawMessage
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if m == nil {
		return nil, errors.New("not a JSON object")
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return m, nil
}

// exactString sets *dst to member key of m when it is present and not null.
func exactString(m map[string]json.RawMessage, key string, dst *string) error {
	raw, ok := m[key]
	if !ok || isNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%q: want a string", key)
	}
	return nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }
