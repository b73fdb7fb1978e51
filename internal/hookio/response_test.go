package hookio

import (
	"encoding/json"
	"testing"
)

// Response shapes observed in PostToolUse captures (Claude Code's hooks reference).
func TestResponseShapes(t *testing.T) {
	tests := []struct {
		name       string
		resp       string
		text       string
		errText    string
		background bool
		check      func(ToolResponse) string
	}{
		{name: "absent", resp: ``},
		{name: "null", resp: `null`},
		{name: "number", resp: `42`},
		{name: "Write create", resp: `{"type":"create","filePath":"/p/a.go","content":"x","structuredPatch":[],"originalFile":null}`,
			text: "x", // Write echoes the file content
			check: func(r ToolResponse) string {
				if r.Type != "create" || r.FilePath != "/p/a.go" {
					return "type/filePath not read"
				}
				return ""
			}},
		{name: "Write update", resp: `{"type":"update","filePath":"/p/a.go","originalFile":"old"}`,
			check: func(r ToolResponse) string {
				if r.Type != "update" {
					return "type not read"
				}
				return ""
			}},
		{name: "Read", resp: `{"type":"text","file":{"filePath":"/p/a.go","content":"Error: in file text","numLines":1}}`,
			check: func(r ToolResponse) string {
				if r.Type != "text" {
					return "type not read"
				}
				return ""
			}},
		{name: "Bash with stderr is not an error", resp: `{"stdout":"ok","stderr":"warning: x","interrupted":false,"isImage":false}`},
		{name: "Bash interrupted", resp: `{"stdout":"","stderr":"","interrupted":true}`,
			check: func(r ToolResponse) string {
				if !r.Interrupted {
					return "interrupted not read"
				}
				return ""
			}},
		{name: "Agent foreground", resp: `{"status":"completed","agentId":"a1","agentType":"reviewer","prompt":"p",
			"content":[{"type":"text","text":"Looks fine."},{"type":"text","text":"REVIEW_APPROVED"}],
			"totalDurationMs":1234,"totalTokens":999,"totalToolUseCount":3,"usage":{"input_tokens":1}}`,
			text: "Looks fine.\nREVIEW_APPROVED",
			check: func(r ToolResponse) string {
				if r.AgentID != "a1" || r.AgentType != "reviewer" || r.Status != "completed" ||
					r.TotalDurationMS != 1234 || r.TotalTokens != 999 || r.TotalToolUseCount != 3 {
					return "agent fields not read"
				}
				return ""
			}},
		{name: "Agent background", resp: `{"isAsync":true,"status":"async_launched","agentId":"a2","description":"d","prompt":"p","outputFile":"/tmp/o"}`,
			background: true,
			check: func(r ToolResponse) string {
				if r.AgentID != "a2" {
					return "agentId not read"
				}
				return ""
			}},
		{name: "Task async_launched without isAsync", resp: `{"status":"async_launched","agentId":"a3"}`, background: true},
		{name: "isAsync without status", resp: `{"isAsync":true}`, background: true},
		{name: "Task 1.0.70", resp: `{"content":[{"type":"text","text":"done"}],"totalDurationMs":5,"totalTokens":7,"totalToolUseCount":1,"usage":{}}`,
			text: "done",
			check: func(r ToolResponse) string {
				if r.AgentID != "" || r.Status != "" || r.TotalTokens != 7 {
					return "1.0.70 shape misread"
				}
				return ""
			}},
		{name: "MCP content array", resp: `[{"type":"text","text":"first"},{"type":"image","data":"AAAA"},{"type":"text","text":"second"}]`,
			text: "first\nsecond"},
		{name: "string response", resp: `"plain output"`, text: "plain output"},
		{name: "string Error", resp: `"Error: file not found"`, text: "Error: file not found", errText: "Error: file not found"},
		{name: "string tool_use_error", resp: `"  <tool_use_error>boom</tool_use_error>"`, text: "  <tool_use_error>boom</tool_use_error>",
			errText: "<tool_use_error>boom</tool_use_error>"},
		{name: "error string field", resp: `{"success":false,"taskId":"9","error":"Task not found"}`, errText: "Task not found",
			check: func(r ToolResponse) string {
				if r.TaskID != "9" {
					return "taskId not read"
				}
				return ""
			}},
		{name: "error object field", resp: `{"error":{"code":500}}`, errText: `{"code":500}`},
		{name: "error null", resp: `{"error":null,"stdout":"x"}`},
		{name: "error false", resp: `{"error":false}`},
		{name: "error empty string", resp: `{"error":""}`},
		{name: "success false", resp: `{"success":false}`, errText: "tool reported success: false"},
		{name: "success true", resp: `{"success":true,"commandName":"x"}`},
		{name: "is_error with content", resp: `{"is_error":true,"content":[{"type":"text","text":"bad input"}]}`,
			text: "bad input", errText: "bad input"},
		{name: "is_error bare", resp: `{"is_error":true}`, errText: "tool reported is_error"},
		{name: "TaskCreate", resp: `{"task":{"id":"1","subject":"Write tests"}}`,
			check: func(r ToolResponse) string {
				if r.Task == nil || r.Task.ID != "1" || r.Task.Subject != "Write tests" {
					return "task not read"
				}
				return ""
			}},
		{name: "TaskUpdate", resp: `{"success":true,"taskId":"1","updatedFields":["status"],"statusChange":{"from":"pending","to":"completed"}}`,
			check: func(r ToolResponse) string {
				if r.TaskID != "1" {
					return "taskId not read"
				}
				return ""
			}},
		{name: "wrong types", resp: `{"status":5,"agentId":["x"],"isAsync":"true","content":{"a":1},"filePath":"/kept"}`,
			check: func(r ToolResponse) string {
				if r.Status != "" || r.AgentID != "" || r.IsAsync || r.FilePath != "/kept" {
					return "not lenient"
				}
				return ""
			}},
		{name: "content as string", resp: `{"content":"just text"}`, text: "just text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := &Event{ToolResponse: json.RawMessage(tt.resp)}
			r := ev.Response()
			if got := r.Text(); got != tt.text {
				t.Errorf("Text() = %q, want %q", got, tt.text)
			}
			if got := r.ErrorText(); got != tt.errText {
				t.Errorf("ErrorText() = %q, want %q", got, tt.errText)
			}
			if got := r.Background(); got != tt.background {
				t.Errorf("Background() = %v, want %v", got, tt.background)
			}
			if tt.check != nil {
				if msg := tt.check(r); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

func TestContentText(t *testing.T) {
	tests := map[string]string{
		``:                            "",
		`null`:                        "",
		`"s"`:                         "s",
		`[]`:                          "",
		`[{"type":"text"}]`:           "",
		`[{"text":"a"},"odd"]`:        "a", // odd blocks are skipped
		`[{"text":"a"},{"text":"b"}]`: "a\nb",
		`{"text":"x"}`:                "",
	}
	for in, want := range tests {
		if got := ContentText(json.RawMessage(in)); got != want {
			t.Errorf("ContentText(%s) = %q, want %q", in, got, want)
		}
	}
}
