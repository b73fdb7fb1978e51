package hookio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
)

// Event is one hook payload as Claude Code sent it. Every field is optional:
// which ones are present depends on the event and on the Claude Code version.
// A field sent with an unexpected JSON type is left empty rather than failing
// the whole payload.
type Event struct {
	// Raw is the payload exactly as received (after leading/trailing
	// whitespace is trimmed).
	Raw []byte `json:"-"`

	HookEventName  string `json:"hook_event_name"`
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode"`
	PromptID       string `json:"prompt_id"`
	AgentID        string `json:"agent_id"`
	AgentType      string `json:"agent_type"`
	Model          string `json:"model"`

	// SessionStart, ConfigChange.
	Source       string `json:"source"`
	SessionTitle string `json:"session_title"`

	// UserPromptSubmit, UserPromptExpansion.
	Prompt        string `json:"prompt"`
	ExpansionType string `json:"expansion_type"`
	CommandName   string `json:"command_name"`
	CommandArgs   string `json:"command_args"`

	// Tool events.
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolUseID    string          `json:"tool_use_id"`
	ToolResponse json.RawMessage `json:"tool_response"`
	ToolCalls    json.RawMessage `json:"tool_calls"`
	DurationMS   float64         `json:"duration_ms"`
	// Error is PostToolUseFailure's and StopFailure's error text.
	Error        string `json:"error"`
	ErrorDetails string `json:"error_details"`
	IsInterrupt  bool   `json:"is_interrupt"`

	// Notification.
	Message          string `json:"message"`
	Title            string `json:"title"`
	NotificationType string `json:"notification_type"`

	// Stop, SubagentStop.
	StopHookActive       bool            `json:"stop_hook_active"`
	LastAssistantMessage string          `json:"last_assistant_message"`
	AgentTranscriptPath  string          `json:"agent_transcript_path"`
	BackgroundTasks      json.RawMessage `json:"background_tasks"`

	// SessionEnd, PermissionDenied.
	Reason string `json:"reason"`

	// PreCompact, PostCompact.
	Trigger            string  `json:"trigger"`
	CustomInstructions *string `json:"custom_instructions"`
	CompactSummary     string  `json:"compact_summary"`

	// TaskCreated, TaskCompleted.
	TaskID          string `json:"task_id"`
	TaskSubject     string `json:"task_subject"`
	TaskDescription string `json:"task_description"`

	// CwdChanged, FileChanged, InstructionsLoaded, ConfigChange.
	OldCwd   string `json:"old_cwd"`
	NewCwd   string `json:"new_cwd"`
	FilePath string `json:"file_path"`
}

// MaxPayloadBytes bounds how much of stdin the recorder reads. Anything
// larger is not a plausible hook payload (Claude Code cuts tool output far
// below it): it is rejected, its start kept in rejected.json. With it, a
// hook's memory stays within a few times this (docs/guarantees.md).
const MaxPayloadBytes = 32 << 20

// Errors returned by Decode for input that is not a hook payload.
var (
	ErrEmpty     = errors.New("empty payload")
	ErrNotObject = errors.New("payload is not a JSON object")
)

// Decode parses one hook payload. It fails only when data is not a JSON
// object at all or nests deeper than MaxDepth; the routing keys
// (session_id, hook_event_name, cwd, transcript_path) are matched exactly,
// first one wins, as Claude Code reads them; other fields of unexpected types are skipped, unknown fields are
// ignored (they stay in Raw), and invalid UTF-8 is replaced.
func Decode(data []byte) (*Event, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, ErrEmpty
	}
	if data[0] != '{' {
		return nil, ErrNotObject
	}
	if err := checkDepth(data); err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		data = []byte(strings.ToValidUTF8(string(data), "\uFFFD"))
	}
	if !json.Valid(data) {
		var probe any
		return nil, fmt.Errorf("malformed JSON: %w", json.Unmarshal(data, &probe))
	}
	ev := &Event{Raw: data}
	jsoncodec.Members(data, eventNames, ev.member)
	fixKeys(data, ev)
	return ev, nil
}

// Name returns the event's CamelCase name, taken from the payload's
// hook_event_name or, when the payload has none (Claude Code before 1.0.41),
// from fallback (the optional EVENT argument). It returns "" when neither
// gives a usable name.
func (e *Event) Name(fallback string) string {
	if n := CamelName(e.HookEventName); n != "" {
		return n
	}
	return CamelName(fallback)
}

// IsSubagentTool reports whether tool is the tool that spawns subagents:
// Agent today, Task before Claude Code 2.1.63.
func IsSubagentTool(tool string) bool {
	return tool == "Agent" || tool == "Task"
}

// ToolInputFields is the subset of tool_input fields spcstr reads. Decoding
// is lenient: a field of another type stays empty.
type ToolInputFields struct {
	FilePath        string `json:"file_path"`
	NotebookPath    string `json:"notebook_path"`
	Command         string `json:"command"`
	Description     string `json:"description"`
	SubagentType    string `json:"subagent_type"`
	Prompt          string `json:"prompt"`
	RunInBackground bool   `json:"run_in_background"`
	Skill           string `json:"skill"`
	Subject         string `json:"subject"`
	Pattern         string `json:"pattern"` // Grep, Glob
	Query           string `json:"query"`   // WebSearch, ToolSearch
	URL             string `json:"url"`     // WebFetch
	TaskID          string `json:"taskId"`
	Status          string `json:"status"`
	Todos           []Todo `json:"todos"`
}

// Todo is one TodoWrite entry.
type Todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm,omitempty"`
}

// Input decodes the tool_input fields spcstr reads.
func (e *Event) Input() ToolInputFields {
	var in ToolInputFields
	if raw := bytes.TrimSpace(e.ToolInput); json.Valid(raw) {
		jsoncodec.Members(raw, toolInputNames, in.member)
	}
	return in
}
