package hookio

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecodeFields(t *testing.T) {
	payload := `{
	  "session_id": "61d1bf36-be5c-4105-a3b5-9191266d28a0",
	  "transcript_path": "/home/u/.claude/projects/-p/61d1bf36.jsonl",
	  "cwd": "/p/sub",
	  "permission_mode": "bypassPermissions",
	  "prompt_id": "p1",
	  "agent_id": "a25533346b956d641",
	  "agent_type": "general-purpose",
	  "effort": {"level": "medium"},
	  "hook_event_name": "PostToolUse",
	  "tool_name": "Write",
	  "tool_input": {"file_path": "/p/a.go", "content": "x"},
	  "tool_response": {"type": "create", "filePath": "/p/a.go"},
	  "tool_use_id": "toolu_1",
	  "duration_ms": 12.5,
	  "custom_instructions": null,
	  "brand_new_field": [1, 2, 3]
	}`
	ev, err := Decode([]byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string][2]string{
		"session_id":      {ev.SessionID, "61d1bf36-be5c-4105-a3b5-9191266d28a0"},
		"transcript_path": {ev.TranscriptPath, "/home/u/.claude/projects/-p/61d1bf36.jsonl"},
		"cwd":             {ev.Cwd, "/p/sub"},
		"permission_mode": {ev.PermissionMode, "bypassPermissions"},
		"agent_id":        {ev.AgentID, "a25533346b956d641"},
		"agent_type":      {ev.AgentType, "general-purpose"},
		"tool_name":       {ev.ToolName, "Write"},
		"tool_use_id":     {ev.ToolUseID, "toolu_1"},
		"file_path":       {ev.Input().FilePath, "/p/a.go"},
		"response type":   {ev.Response().Type, "create"},
		"name":            {ev.Name(""), PostToolUse},
	}
	for k, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %q, want %q", k, c[0], c[1])
		}
	}
	if ev.DurationMS != 12.5 {
		t.Errorf("duration_ms = %v", ev.DurationMS)
	}
	if ev.CustomInstructions != nil {
		t.Errorf("custom_instructions null decoded as %q", *ev.CustomInstructions)
	}
	if string(ev.Raw) != strings.TrimSpace(payload) {
		t.Errorf("Raw is not the trimmed payload")
	}
}

// Decode is lenient: a field of the wrong type is skipped, every other field
// (including those after it) is still read.
func TestDecodeWrongFieldTypes(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		check   func(*Event) string
	}{
		{"number session_id", `{"session_id":123,"hook_event_name":"Stop","cwd":"/p"}`, func(e *Event) string {
			if e.SessionID != "" || e.HookEventName != "Stop" || e.Cwd != "/p" {
				return "fields after the bad one lost"
			}
			return ""
		}},
		{"array tool_name, string bool, object prompt", `{"tool_name":["Bash"],"stop_hook_active":"yes","prompt":{"x":1},"session_id":"s1"}`, func(e *Event) string {
			if e.ToolName != "" || e.StopHookActive || e.Prompt != "" || e.SessionID != "s1" {
				return "wrong-typed fields not skipped"
			}
			return ""
		}},
		{"string duration, huge number, number custom_instructions", `{"duration_ms":"12","is_interrupt":1e400,"custom_instructions":7,"reason":"clear"}`, func(e *Event) string {
			// encoding/json may leave the pointer allocated: its value stays empty.
			if e.DurationMS != 0 || e.IsInterrupt || (e.CustomInstructions != nil && *e.CustomInstructions != "") || e.Reason != "clear" {
				return "wrong-typed fields not skipped"
			}
			return ""
		}},
		{"tool_input is a string", `{"tool_name":"Read","tool_input":"oops","tool_response":"Error: x","session_id":"s"}`, func(e *Event) string {
			if in := e.Input(); in.FilePath != "" {
				return "string tool_input decoded"
			}
			if e.Response().ErrorText() != "Error: x" {
				return "string tool_response lost"
			}
			return ""
		}},
		{"tool_input field types", `{"tool_input":{"file_path":5,"command":"ls","todos":"x","run_in_background":"true"}}`, func(e *Event) string {
			in := e.Input()
			if in.FilePath != "" || in.Command != "ls" || in.Todos != nil || in.RunInBackground {
				return "tool_input not decoded leniently"
			}
			return ""
		}},
		{"null everywhere", `{"session_id":null,"tool_input":null,"tool_response":null,"hook_event_name":null}`, func(e *Event) string {
			if e.SessionID != "" || e.Input().FilePath != "" || e.Response().Text() != "" || e.Name("") != "" {
				return "nulls not empty"
			}
			return ""
		}},
		{"case-insensitive keys are read", `{"Session_Id":"s9","HOOK_EVENT_NAME":"Stop"}`, func(e *Event) string {
			if e.SessionID != "s9" || e.Name("") != Stop {
				return "keys differing in case were not matched"
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := Decode([]byte(tt.payload))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if msg := tt.check(ev); msg != "" {
				t.Error(msg)
			}
		})
	}
}

func TestDecodeRejects(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		want    error // nil: any error
	}{
		{"empty", "", ErrEmpty},
		{"whitespace", " \n\t\r ", ErrEmpty},
		{"array", `[{"session_id":"s","hook_event_name":"Stop"}]`, ErrNotObject},
		{"empty array", `[]`, ErrNotObject},
		{"string", `"Stop"`, ErrNotObject},
		{"number", `42`, ErrNotObject},
		{"null", `null`, ErrNotObject},
		{"garbage", "hello world", ErrNotObject},
		{"binary", "\x00\x01\x02\xff\xfe", ErrNotObject},
		{"BOM", "\xef\xbb\xbf{}", ErrNotObject},
		{"truncated object", `{"session_id":"s","hook_ev`, nil},
		{"open brace", `{`, nil},
		{"trailing garbage", `{"session_id":"s"} trailing`, nil},
		{"two objects", `{"a":1}{"b":2}`, nil},
		{"single quotes", `{'session_id':'s'}`, nil},
		{"unquoted key", `{session_id:"s"}`, nil},
		{"deep nesting", "{\"a\":" + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := Decode([]byte(tt.payload))
			if err == nil {
				t.Fatalf("Decode accepted %q: %+v", tt.payload, ev)
			}
			if ev != nil {
				t.Errorf("non-nil event with error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestDecodeInvalidUTF8(t *testing.T) {
	payload := "{\"session_id\":\"s\",\"prompt\":\"caf\xe9 \xff\xfe ok\",\"hook_event_name\":\"UserPromptSubmit\"}"
	ev, err := Decode([]byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(ev.Raw) {
		t.Error("Raw still holds invalid UTF-8")
	}
	if !utf8.ValidString(ev.Prompt) || !strings.Contains(ev.Prompt, "\uFFFD") || !strings.HasSuffix(ev.Prompt, " ok") {
		t.Errorf("prompt = %q", ev.Prompt)
	}
	// Lone surrogate escapes (Windows loggers) decode to U+FFFD.
	ev, err = Decode([]byte(`{"prompt":"a\udc8fb"}`))
	if err != nil || ev.Prompt != "a\uFFFDb" {
		t.Errorf("lone surrogate: %q, %v", ev.Prompt, err)
	}
}

func TestDecodeEmptyObject(t *testing.T) {
	for _, p := range []string{"{}", "  {}\n", "{ }"} {
		ev, err := Decode([]byte(p))
		if err != nil || ev == nil {
			t.Fatalf("Decode(%q): %v", p, err)
		}
		if ev.Name("") != "" || ev.SessionID != "" {
			t.Errorf("empty object has fields: %+v", ev)
		}
	}
}

func TestIsSubagentTool(t *testing.T) {
	for tool, want := range map[string]bool{"Agent": true, "Task": true, "TaskCreate": false, "agent": false, "": false, "Bash": false} {
		if IsSubagentTool(tool) != want {
			t.Errorf("IsSubagentTool(%q) != %v", tool, want)
		}
	}
}

// Keys that differ from a routing key only in case, or repeat it, are
// resolved the way Claude Code reads the payload: the first exactly named
// key wins (encoding/json alone would take the last case-insensitive one).
func TestDecodeDuplicateRoutingKeys(t *testing.T) {
	tests := []struct{ payload, session, event string }{
		{`{"session_id":"good","SESSION_ID":"evil","hook_event_name":"Stop"}`, "good", "Stop"},
		{`{"Session_ID":"evil","session_id":"good","hook_event_name":"Stop"}`, "good", "Stop"},
		{`{"session_id":"first","session_id":"second","hook_event_name":"Stop","HOOK_EVENT_NAME":"SessionEnd"}`, "first", "Stop"},
		{`{"prompt":"\"session_id\" in text","session_id":"s1","hook_event_name":"Stop"}`, "s1", "Stop"},
	}
	for _, tt := range tests {
		ev, err := Decode([]byte(tt.payload))
		if err != nil {
			t.Fatalf("%s: %v", tt.payload, err)
		}
		if ev.SessionID != tt.session || ev.HookEventName != tt.event {
			t.Errorf("%s: session %q event %q, want %q %q", tt.payload, ev.SessionID, ev.HookEventName, tt.session, tt.event)
		}
	}
}

// A payload nested deeper than MaxDepth is rejected: Python's json and jq
// could not read a log holding it.
func TestDecodeTooDeep(t *testing.T) {
	deep := `{"session_id":"s","hook_event_name":"PostToolUse","tool_input":` + strings.Repeat("[", MaxDepth+10) + strings.Repeat("]", MaxDepth+10) + `}`
	if _, err := Decode([]byte(deep)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("deep payload: %v", err)
	}
	ok := `{"session_id":"s","x":` + strings.Repeat("[", 100) + `"[[[[{{{{"` + strings.Repeat("]", 100) + `}`
	if _, err := Decode([]byte(ok)); err != nil {
		t.Errorf("100 levels with brackets in a string: %v", err)
	}
}
