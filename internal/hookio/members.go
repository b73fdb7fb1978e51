package hookio

import (
	"github.com/mailru/easyjson/jlexer"

	"github.com/dylan-gluck/spcstr/internal/jsonread"
)

// The payload's members are read with internal/jsonread (encoding/json's
// rules without its reflection); members_test.go holds them to
// encoding/json.

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
func (e *Event) member(name string, l *jlexer.Lexer) bool {
	switch name {
	case "hook_event_name":
		return jsonread.String(l, &e.HookEventName)
	case "session_id":
		return jsonread.String(l, &e.SessionID)
	case "transcript_path":
		return jsonread.String(l, &e.TranscriptPath)
	case "cwd":
		return jsonread.String(l, &e.Cwd)
	case "permission_mode":
		return jsonread.String(l, &e.PermissionMode)
	case "prompt_id":
		return jsonread.String(l, &e.PromptID)
	case "agent_id":
		return jsonread.String(l, &e.AgentID)
	case "agent_type":
		return jsonread.String(l, &e.AgentType)
	case "model":
		return jsonread.String(l, &e.Model)
	case "source":
		return jsonread.String(l, &e.Source)
	case "session_title":
		return jsonread.String(l, &e.SessionTitle)
	case "prompt":
		return jsonread.String(l, &e.Prompt)
	case "expansion_type":
		return jsonread.String(l, &e.ExpansionType)
	case "command_name":
		return jsonread.String(l, &e.CommandName)
	case "command_args":
		return jsonread.String(l, &e.CommandArgs)
	case "tool_name":
		return jsonread.String(l, &e.ToolName)
	case "tool_input":
		return jsonread.Raw(l, &e.ToolInput)
	case "tool_use_id":
		return jsonread.String(l, &e.ToolUseID)
	case "tool_response":
		return jsonread.Raw(l, &e.ToolResponse)
	case "tool_calls":
		return jsonread.Raw(l, &e.ToolCalls)
	case "duration_ms":
		return jsonread.Float(l, &e.DurationMS)
	case "error":
		return jsonread.String(l, &e.Error)
	case "error_details":
		return jsonread.String(l, &e.ErrorDetails)
	case "is_interrupt":
		return jsonread.Bool(l, &e.IsInterrupt)
	case "message":
		return jsonread.String(l, &e.Message)
	case "title":
		return jsonread.String(l, &e.Title)
	case "notification_type":
		return jsonread.String(l, &e.NotificationType)
	case "stop_hook_active":
		return jsonread.Bool(l, &e.StopHookActive)
	case "last_assistant_message":
		return jsonread.String(l, &e.LastAssistantMessage)
	case "agent_transcript_path":
		return jsonread.String(l, &e.AgentTranscriptPath)
	case "background_tasks":
		return jsonread.Raw(l, &e.BackgroundTasks)
	case "reason":
		return jsonread.String(l, &e.Reason)
	case "trigger":
		return jsonread.String(l, &e.Trigger)
	case "custom_instructions":
		return jsonread.StringPtr(l, &e.CustomInstructions)
	case "compact_summary":
		return jsonread.String(l, &e.CompactSummary)
	case "task_id":
		return jsonread.String(l, &e.TaskID)
	case "task_subject":
		return jsonread.String(l, &e.TaskSubject)
	case "task_description":
		return jsonread.String(l, &e.TaskDescription)
	case "old_cwd":
		return jsonread.String(l, &e.OldCwd)
	case "new_cwd":
		return jsonread.String(l, &e.NewCwd)
	case "file_path":
		return jsonread.String(l, &e.FilePath)
	default:
		l.SkipRecursive()
		return true
	}
}

// toolInputNames are ToolInputFields' JSON field names.
var toolInputNames = []string{
	"file_path", "notebook_path", "command", "description", "subagent_type",
	"prompt", "run_in_background", "skill", "subject", "pattern", "query",
	"url", "taskId", "status", "todos",
}

func (in *ToolInputFields) member(name string, l *jlexer.Lexer) bool {
	switch name {
	case "file_path":
		return jsonread.String(l, &in.FilePath)
	case "notebook_path":
		return jsonread.String(l, &in.NotebookPath)
	case "command":
		return jsonread.String(l, &in.Command)
	case "description":
		return jsonread.String(l, &in.Description)
	case "subagent_type":
		return jsonread.String(l, &in.SubagentType)
	case "prompt":
		return jsonread.String(l, &in.Prompt)
	case "run_in_background":
		return jsonread.Bool(l, &in.RunInBackground)
	case "skill":
		return jsonread.String(l, &in.Skill)
	case "subject":
		return jsonread.String(l, &in.Subject)
	case "pattern":
		return jsonread.String(l, &in.Pattern)
	case "query":
		return jsonread.String(l, &in.Query)
	case "url":
		return jsonread.String(l, &in.URL)
	case "taskId":
		return jsonread.String(l, &in.TaskID)
	case "status":
		return jsonread.String(l, &in.Status)
	case "todos":
		return jsonread.List(l, &in.Todos, readTodo)
	default:
		l.SkipRecursive()
		return true
	}
}

var todoNames = []string{"content", "status", "activeForm"}

func readTodo(l *jlexer.Lexer, t *Todo) bool {
	return jsonread.Object(l, todoNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "content":
			return jsonread.String(l, &t.Content)
		case "status":
			return jsonread.String(l, &t.Status)
		default:
			return jsonread.String(l, &t.ActiveForm)
		}
	})
}

// toolResponseNames are ToolResponse's JSON field names.
var toolResponseNames = []string{
	"type", "filePath", "status", "agentId", "agentType", "isAsync", "content",
	"totalDurationMs", "totalTokens", "totalToolUseCount", "error", "success",
	"is_error", "interrupted", "task", "taskId",
}

func (r *ToolResponse) member(name string, l *jlexer.Lexer) bool {
	switch name {
	case "type":
		return jsonread.String(l, &r.Type)
	case "filePath":
		return jsonread.String(l, &r.FilePath)
	case "status":
		return jsonread.String(l, &r.Status)
	case "agentId":
		return jsonread.String(l, &r.AgentID)
	case "agentType":
		return jsonread.String(l, &r.AgentType)
	case "isAsync":
		return jsonread.Bool(l, &r.IsAsync)
	case "content":
		return jsonread.Raw(l, &r.Content)
	case "totalDurationMs":
		return jsonread.Float(l, &r.TotalDurationMS)
	case "totalTokens":
		return jsonread.Int(l, &r.TotalTokens)
	case "totalToolUseCount":
		return jsonread.Int(l, &r.TotalToolUseCount)
	case "error":
		return jsonread.Raw(l, &r.Error)
	case "success":
		return jsonread.BoolPtr(l, &r.Success)
	case "is_error":
		return jsonread.Bool(l, &r.IsError)
	case "interrupted":
		return jsonread.Bool(l, &r.Interrupted)
	case "task":
		return readTaskRef(l, &r.Task)
	case "taskId":
		return jsonread.String(l, &r.TaskID)
	default:
		l.SkipRecursive()
		return true
	}
}

var taskRefNames = []string{"id", "subject"}

// readTaskRef reads the task object: null makes it nil, an object fills
// it, anything else leaves it empty.
func readTaskRef(l *jlexer.Lexer, p **TaskRef) bool {
	if l.CurrentToken() == jlexer.TokenNull {
		l.Skip()
		*p = nil
		return true
	}
	if *p == nil {
		*p = new(TaskRef)
	}
	t := *p
	return jsonread.Object(l, taskRefNames, func(name string, l *jlexer.Lexer) bool {
		if name == "id" {
			return jsonread.String(l, &t.ID)
		}
		return jsonread.String(l, &t.Subject)
	})
}
