package hookio

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mailru/easyjson/jlexer"

	"github.com/dylan-gluck/spcstr/internal/jsonread"
)

// contentBlockNames: of a content block ({"type":"text","text":...}) only
// the text is read.
var contentBlockNames = []string{"text"}

// ToolResponse is the subset of a PostToolUse tool_response spcstr reads.
// Shapes differ per tool and version (Claude Code's hooks reference); every field
// is optional and decoded leniently.
type ToolResponse struct {
	// Write: "create" or "update". Read: "text", "image", ...
	Type     string `json:"type"`
	FilePath string `json:"filePath"`

	// Agent/Task.
	Status            string          `json:"status"`
	AgentID           string          `json:"agentId"`
	AgentType         string          `json:"agentType"`
	IsAsync           bool            `json:"isAsync"`
	Content           json.RawMessage `json:"content"`
	TotalDurationMS   float64         `json:"totalDurationMs"`
	TotalTokens       int64           `json:"totalTokens"`
	TotalToolUseCount int64           `json:"totalToolUseCount"`

	// Error shapes.
	Error       json.RawMessage `json:"error"`
	Success     *bool           `json:"success"`
	IsError     bool            `json:"is_error"`
	Interrupted bool            `json:"interrupted"`

	// TaskCreate / TaskUpdate.
	Task   *TaskRef `json:"task"`
	TaskID string   `json:"taskId"`

	isString bool
	text     string
}

// TaskRef is the task object TaskCreate returns.
type TaskRef struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
}

// Response decodes the event's tool_response. A string response (older
// versions, some MCP tools) is kept as text.
func (e *Event) Response() ToolResponse {
	var r ToolResponse
	raw := bytes.TrimSpace(e.ToolResponse)
	if len(raw) == 0 {
		return r
	}
	switch raw[0] {
	case '{':
		if json.Valid(raw) {
			jsonread.Members(raw, toolResponseNames, r.member)
		}
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			r.isString, r.text = true, s
		}
	case '[':
		r.Content = raw
	}
	return r
}

// Text returns the human-readable text of the response: a string response
// itself, or the concatenated text blocks of an Agent/Task or MCP content
// array.
func (r ToolResponse) Text() string {
	if r.isString {
		return r.text
	}
	return ContentText(r.Content)
}

// ContentText flattens a content value that is either a string or an array
// of content blocks ({"type":"text","text":...}) into plain text.
func ContentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	case '[':
		if !json.Valid(raw) {
			return ""
		}
		var texts []string
		l := jlexer.Lexer{Data: raw}
		jsonread.List(&l, &texts, func(l *jlexer.Lexer, text *string) bool {
			return jsonread.Object(l, contentBlockNames, func(_ string, l *jlexer.Lexer) bool { return jsonread.String(l, text) })
		})
		var parts []string
		for _, t := range texts {
			if t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// ErrorText returns the error a tool_response reports, or "" when it does
// not look like an error: a string starting with "Error", an "error" field,
// "success": false, or "is_error": true.
func (r ToolResponse) ErrorText() string {
	if r.isString {
		t := strings.TrimSpace(r.text)
		if strings.HasPrefix(t, "Error") || strings.HasPrefix(t, "<tool_use_error>") {
			return t
		}
		return ""
	}
	if e := bytes.TrimSpace(r.Error); len(e) > 0 && !bytes.Equal(e, []byte("null")) {
		if e[0] == '"' {
			var s string
			_ = json.Unmarshal(e, &s)
			if s != "" {
				return s
			}
		} else if !bytes.Equal(e, []byte("false")) {
			return string(e)
		}
	}
	if r.IsError {
		if t := r.Text(); t != "" {
			return t
		}
		return "tool reported is_error"
	}
	if r.Success != nil && !*r.Success {
		return "tool reported success: false"
	}
	return ""
}

// Background reports whether an Agent/Task response is the immediate answer
// of a background launch (the agent keeps running; it completes at its
// SubagentStop).
func (r ToolResponse) Background() bool {
	return r.Status == "async_launched" || r.IsAsync
}
