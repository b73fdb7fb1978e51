package hookio

import (
	"strings"
	"testing"
)

func TestSnakeName(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		// Both spellings of events Claude Code sends.
		{"PreToolUse", "pre_tool_use"},
		{"pre_tool_use", "pre_tool_use"},
		{"PostToolUseFailure", "post_tool_use_failure"},
		{"post_tool_use_failure", "post_tool_use_failure"},
		{"SessionStart", "session_start"},
		{"session_start", "session_start"},
		{"SubagentStop", "subagent_stop"},
		{"UserPromptSubmit", "user_prompt_submit"},
		{"PostToolBatch", "post_tool_batch"},
		{"CwdChanged", "cwd_changed"},
		{"Stop", "stop"},
		{"stop", "stop"},
		// Other casings a user might type as the EVENT argument.
		{"sessionStart", "session_start"},
		{"PRE_TOOL_USE", "pre_tool_use"},
		{"Session_Start", "session_start"},
		{"HTTPRequest", "http_request"},
		{"Event2Fired", "event2_fired"},
		{"a", "a"},
		{strings.Repeat("a", 64), strings.Repeat("a", 64)},
		// Hostile or unusable names: never a file name.
		{"", ""},
		{strings.Repeat("a", 65), ""},
		{"../../etc/passwd", ""},
		{"..", ""},
		{"a/b", ""},
		{`a\b`, ""},
		{"a.b", ""},
		{"pre_tool_use.1", ""},
		{"a b", ""},
		{"a\x00b", ""},
		{"stop\n", ""},
		{"_stop", ""},
		{"1stop", ""},
		{"-stop", ""},
		{"ＳｅｓｓｉｏｎＳｔａｒｔ", ""},
		{"Ünknown", ""},
		{"\u212Aelvin", ""}, // KELVIN SIGN lower-cases to k
		{"caf\xe9", ""},
		// Names that would alias a known event through CamelName.
		{"stop_", ""},
		{"Stop_", ""},
		{"pre__tool_use", ""},
	}
	for _, tt := range tests {
		if got := SnakeName(tt.in); got != tt.want {
			t.Errorf("SnakeName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCamelName(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"session_start", "SessionStart"},
		{"SessionStart", "SessionStart"},
		{"post_tool_use_failure", "PostToolUseFailure"},
		{"PostToolUseFailure", "PostToolUseFailure"},
		{"subagent_start", "SubagentStart"},
		{"pre_compact", "PreCompact"},
		{"PRE_TOOL_USE", "PreToolUse"},
		{"sessionStart", "SessionStart"},
		// Unknown events keep a CamelCase spelling.
		{"brand_new_event", "BrandNewEvent"},
		{"BrandNewEvent", "BrandNewEvent"},
		// Rejected names.
		{"", ""},
		{"../stop", ""},
		{"stop_", ""},
		{"a.b", ""},
	}
	for _, tt := range tests {
		if got := CamelName(tt.in); got != tt.want {
			t.Errorf("CamelName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKnownEventsRoundTrip(t *testing.T) {
	seen := map[string]string{}
	for _, k := range KnownEvents {
		snake := SnakeName(k)
		if snake == "" {
			t.Errorf("SnakeName(%q) is empty", k)
			continue
		}
		if other, dup := seen[snake]; dup {
			t.Errorf("%q and %q share the log name %q", k, other, snake)
		}
		seen[snake] = k
		if got := CamelName(snake); got != k {
			t.Errorf("CamelName(%q) = %q, want %q", snake, got, k)
		}
		if got := CamelName(k); got != k {
			t.Errorf("CamelName(%q) = %q, want itself", k, got)
		}
		if !IsKnown(k) || !IsKnown(snake) {
			t.Errorf("IsKnown(%q/%q) = false", k, snake)
		}
	}
	for _, unknown := range []string{"", "BrandNewEvent", "stop_", "../stop"} {
		if IsKnown(unknown) {
			t.Errorf("IsKnown(%q) = true", unknown)
		}
	}
}

// The log file of an event is the same whichever spelling names it: the
// recorder logs under SnakeName(CamelName(x)).
func TestCamelSnakeSameLog(t *testing.T) {
	for _, in := range []string{"PreToolUse", "pre_tool_use", "BrandNewEvent", "brand_new_event",
		"x", "HTTPRequest", "Event2Fired", "PRE_TOOL_USE", "sessionStart", "Session_Start"} {
		c := CamelName(in)
		if c == "" {
			t.Fatalf("CamelName(%q) empty", in)
		}
		if got, want := SnakeName(c), SnakeName(in); got != want {
			t.Errorf("%q: CamelName %q logs to %q, SnakeName gives %q", in, c, got, want)
		}
	}
}

func TestEventName(t *testing.T) {
	tests := []struct {
		payload, fallback, want string
	}{
		{`{"hook_event_name":"PreToolUse"}`, "", "PreToolUse"},
		{`{"hook_event_name":"PreToolUse"}`, "stop", "PreToolUse"}, // payload wins
		{`{}`, "session_start", "SessionStart"},                    // before 1.0.41: no hook_event_name
		{`{}`, "SessionStart", "SessionStart"},
		{`{}`, "", ""},
		{`{"hook_event_name":"../x"}`, "", ""},
		{`{"hook_event_name":"../x"}`, "stop", "Stop"},
		{`{"hook_event_name":"NewThing"}`, "", "NewThing"},
		{`{"hook_event_name":7}`, "notification", "Notification"},
	}
	for _, tt := range tests {
		ev, err := Decode([]byte(tt.payload))
		if err != nil {
			t.Fatalf("Decode(%s): %v", tt.payload, err)
		}
		if got := ev.Name(tt.fallback); got != tt.want {
			t.Errorf("Name(%s, %q) = %q, want %q", tt.payload, tt.fallback, got, tt.want)
		}
	}
}
