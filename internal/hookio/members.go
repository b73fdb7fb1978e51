package hookio

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mailru/easyjson/jlexer"
)

// The payload's members are read with easyjson's lexer rather than
// encoding/json: each hook is a new process, and encoding/json builds its
// decoder for a struct by reflection on first use, which cost a hook more
// than the decoding itself. The rules are encoding/json's, and a
// differential test holds them to it:
//   - a member sets the field of its exact name, else the first field whose
//     name matches it case-insensitively; a later member wins;
//   - a value of another JSON type leaves the field as it was (as
//     encoding/json's UnmarshalTypeError does), and so does null, except
//     that null makes a pointer or a slice nil and a raw field keeps "null";
//   - any other value gives a nil pointer field its zero value first, even
//     one of the wrong type ("success":"yes" reads as false);
//   - unknown members are skipped.
// The input is valid JSON (Decode checks it first), so the lexer never
// meets a syntax error here.

// object reads the JSON object at l, handing each member to set by the name
// of the field it belongs to (names lists the fields' JSON names, for the
// case-insensitive match). A value that is not an object is skipped and
// reported false; null is skipped and reported true.
func object(l *jlexer.Lexer, names []string, set func(name string, l *jlexer.Lexer)) bool {
	switch l.CurrentToken() {
	case jlexer.TokenNull:
		l.Skip()
		return true
	case jlexer.TokenDelim:
	default:
		l.SkipRecursive()
		return false
	}
	if !l.IsDelim('{') {
		l.SkipRecursive()
		return false
	}
	l.Delim('{')
	for !l.IsDelim('}') && l.Ok() {
		key := l.UnsafeFieldName(false)
		l.WantColon()
		if name, ok := fieldName(names, key); ok {
			set(name, l)
		} else {
			l.SkipRecursive()
		}
		l.WantComma()
	}
	l.Delim('}')
	return true
}

// fieldName returns the field name key belongs to: its exact match, else
// the first case-insensitive one.
func fieldName(names []string, key string) (string, bool) {
	for _, n := range names {
		if n == key {
			return n, true
		}
	}
	for _, n := range names {
		if strings.EqualFold(n, key) {
			return n, true
		}
	}
	return "", false
}

// The value readers below store a value of their kind and skip any other.

func readString(l *jlexer.Lexer, p *string) {
	if l.CurrentToken() == jlexer.TokenString {
		*p = l.String()
		return
	}
	l.SkipRecursive()
}

func readStringPtr(l *jlexer.Lexer, p **string) {
	if l.CurrentToken() == jlexer.TokenNull {
		l.Skip()
		*p = nil
		return
	}
	if *p == nil {
		*p = new(string)
	}
	readString(l, *p)
}

func readBool(l *jlexer.Lexer, p *bool) {
	if l.CurrentToken() == jlexer.TokenBool {
		*p = l.Bool()
		return
	}
	l.SkipRecursive()
}

func readBoolPtr(l *jlexer.Lexer, p **bool) {
	if l.CurrentToken() == jlexer.TokenNull {
		l.Skip()
		*p = nil
		return
	}
	if *p == nil {
		*p = new(bool)
	}
	readBool(l, *p)
}

func readFloat(l *jlexer.Lexer, p *float64) {
	if l.CurrentToken() != jlexer.TokenNumber {
		l.SkipRecursive()
		return
	}
	if f, err := strconv.ParseFloat(string(l.Raw()), 64); err == nil {
		*p = f
	}
}

func readInt(l *jlexer.Lexer, p *int64) {
	if l.CurrentToken() != jlexer.TokenNumber {
		l.SkipRecursive()
		return
	}
	if n, err := strconv.ParseInt(string(l.Raw()), 10, 64); err == nil {
		*p = n
	}
}

// readRaw keeps the value's bytes as they are (null included), copied.
func readRaw(l *jlexer.Lexer, p *json.RawMessage) {
	*p = append(json.RawMessage(nil), l.Raw()...)
}

// readList reads a JSON array into *p, one element per entry, each read by
// elem; null makes the list nil, any other value leaves it as it was.
func readList[T any](l *jlexer.Lexer, p *[]T, elem func(*jlexer.Lexer, *T)) {
	switch l.CurrentToken() {
	case jlexer.TokenNull:
		l.Skip()
		*p = nil
		return
	case jlexer.TokenDelim:
		if l.IsDelim('[') {
			break
		}
		fallthrough
	default:
		l.SkipRecursive()
		return
	}
	l.Delim('[')
	list := []T{}
	for !l.IsDelim(']') && l.Ok() {
		var v T
		elem(l, &v)
		list = append(list, v)
		l.WantComma()
	}
	l.Delim(']')
	*p = list
}

// decodeMembers reads data (one JSON value) into v's fields by set, with
// the rules above; it reports false when data is not an object.
func decodeMembers(data []byte, names []string, set func(name string, l *jlexer.Lexer)) bool {
	l := jlexer.Lexer{Data: data}
	ok := object(&l, names, set)
	return ok && l.Ok()
}

// eventNames are Event's JSON field names.
var eventNames = []string{
	"hook_event_name", "session_id", "transcript_path", "cwd", "permission_mode",
	"prompt_id", "agent_id", "agent_type", "model", "source", "session_title",
	"prompt", "expansion_type", "command_name", "command_args", "tool_name",
	"tool_input", "tool_use_id", "tool_response", "tool_calls", "duration_ms",
	"error", "error_details", "is_interrupt", "message", "title",
	"notification_type", "stop_hook_active", "last_assistant_message",
	"agent_transcript_path", "background_tasks", "reason", "trigger",
	"custom_instructions", "compact_summary", "task_id", "task_subject",
	"task_description", "old_cwd", "new_cwd", "file_path",
}

// member reads the value of Event's field name.
func (e *Event) member(name string, l *jlexer.Lexer) {
	switch name {
	case "hook_event_name":
		readString(l, &e.HookEventName)
	case "session_id":
		readString(l, &e.SessionID)
	case "transcript_path":
		readString(l, &e.TranscriptPath)
	case "cwd":
		readString(l, &e.Cwd)
	case "permission_mode":
		readString(l, &e.PermissionMode)
	case "prompt_id":
		readString(l, &e.PromptID)
	case "agent_id":
		readString(l, &e.AgentID)
	case "agent_type":
		readString(l, &e.AgentType)
	case "model":
		readString(l, &e.Model)
	case "source":
		readString(l, &e.Source)
	case "session_title":
		readString(l, &e.SessionTitle)
	case "prompt":
		readString(l, &e.Prompt)
	case "expansion_type":
		readString(l, &e.ExpansionType)
	case "command_name":
		readString(l, &e.CommandName)
	case "command_args":
		readString(l, &e.CommandArgs)
	case "tool_name":
		readString(l, &e.ToolName)
	case "tool_input":
		readRaw(l, &e.ToolInput)
	case "tool_use_id":
		readString(l, &e.ToolUseID)
	case "tool_response":
		readRaw(l, &e.ToolResponse)
	case "tool_calls":
		readRaw(l, &e.ToolCalls)
	case "duration_ms":
		readFloat(l, &e.DurationMS)
	case "error":
		readString(l, &e.Error)
	case "error_details":
		readString(l, &e.ErrorDetails)
	case "is_interrupt":
		readBool(l, &e.IsInterrupt)
	case "message":
		readString(l, &e.Message)
	case "title":
		readString(l, &e.Title)
	case "notification_type":
		readString(l, &e.NotificationType)
	case "stop_hook_active":
		readBool(l, &e.StopHookActive)
	case "last_assistant_message":
		readString(l, &e.LastAssistantMessage)
	case "agent_transcript_path":
		readString(l, &e.AgentTranscriptPath)
	case "background_tasks":
		readRaw(l, &e.BackgroundTasks)
	case "reason":
		readString(l, &e.Reason)
	case "trigger":
		readString(l, &e.Trigger)
	case "custom_instructions":
		readStringPtr(l, &e.CustomInstructions)
	case "compact_summary":
		readString(l, &e.CompactSummary)
	case "task_id":
		readString(l, &e.TaskID)
	case "task_subject":
		readString(l, &e.TaskSubject)
	case "task_description":
		readString(l, &e.TaskDescription)
	case "old_cwd":
		readString(l, &e.OldCwd)
	case "new_cwd":
		readString(l, &e.NewCwd)
	case "file_path":
		readString(l, &e.FilePath)
	default:
		l.SkipRecursive()
	}
}

// toolInputNames are ToolInputFields' JSON field names.
var toolInputNames = []string{
	"file_path", "notebook_path", "command", "description", "subagent_type",
	"prompt", "run_in_background", "skill", "subject", "pattern", "query",
	"url", "taskId", "status", "todos",
}

func (in *ToolInputFields) member(name string, l *jlexer.Lexer) {
	switch name {
	case "file_path":
		readString(l, &in.FilePath)
	case "notebook_path":
		readString(l, &in.NotebookPath)
	case "command":
		readString(l, &in.Command)
	case "description":
		readString(l, &in.Description)
	case "subagent_type":
		readString(l, &in.SubagentType)
	case "prompt":
		readString(l, &in.Prompt)
	case "run_in_background":
		readBool(l, &in.RunInBackground)
	case "skill":
		readString(l, &in.Skill)
	case "subject":
		readString(l, &in.Subject)
	case "pattern":
		readString(l, &in.Pattern)
	case "query":
		readString(l, &in.Query)
	case "url":
		readString(l, &in.URL)
	case "taskId":
		readString(l, &in.TaskID)
	case "status":
		readString(l, &in.Status)
	case "todos":
		readList(l, &in.Todos, readTodo)
	default:
		l.SkipRecursive()
	}
}

var todoNames = []string{"content", "status", "activeForm"}

func readTodo(l *jlexer.Lexer, t *Todo) {
	object(l, todoNames, func(name string, l *jlexer.Lexer) {
		switch name {
		case "content":
			readString(l, &t.Content)
		case "status":
			readString(l, &t.Status)
		default:
			readString(l, &t.ActiveForm)
		}
	})
}

// toolResponseNames are ToolResponse's JSON field names.
var toolResponseNames = []string{
	"type", "filePath", "status", "agentId", "agentType", "isAsync", "content",
	"totalDurationMs", "totalTokens", "totalToolUseCount", "error", "success",
	"is_error", "interrupted", "task", "taskId",
}

func (r *ToolResponse) member(name string, l *jlexer.Lexer) {
	switch name {
	case "type":
		readString(l, &r.Type)
	case "filePath":
		readString(l, &r.FilePath)
	case "status":
		readString(l, &r.Status)
	case "agentId":
		readString(l, &r.AgentID)
	case "agentType":
		readString(l, &r.AgentType)
	case "isAsync":
		readBool(l, &r.IsAsync)
	case "content":
		readRaw(l, &r.Content)
	case "totalDurationMs":
		readFloat(l, &r.TotalDurationMS)
	case "totalTokens":
		readInt(l, &r.TotalTokens)
	case "totalToolUseCount":
		readInt(l, &r.TotalToolUseCount)
	case "error":
		readRaw(l, &r.Error)
	case "success":
		readBoolPtr(l, &r.Success)
	case "is_error":
		readBool(l, &r.IsError)
	case "interrupted":
		readBool(l, &r.Interrupted)
	case "task":
		readTaskRef(l, &r.Task)
	case "taskId":
		readString(l, &r.TaskID)
	default:
		l.SkipRecursive()
	}
}

var taskRefNames = []string{"id", "subject"}

// readTaskRef reads the task object: null makes it nil, an object fills
// it, anything else leaves it empty.
func readTaskRef(l *jlexer.Lexer, p **TaskRef) {
	if l.CurrentToken() == jlexer.TokenNull {
		l.Skip()
		*p = nil
		return
	}
	if *p == nil {
		*p = new(TaskRef)
	}
	t := *p
	object(l, taskRefNames, func(name string, l *jlexer.Lexer) {
		if name == "id" {
			readString(l, &t.ID)
		} else {
			readString(l, &t.Subject)
		}
	})
}
