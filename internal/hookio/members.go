package hookio

import (
	"github.com/mailru/easyjson/jlexer"

	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
)

// The payload's members are read with internal/jsoncodec (encoding/json's
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
		return jsoncodec.String(l, &e.HookEventName)
	case "session_id":
		return jsoncodec.String(l, &e.SessionID)
	case "transcript_path":
		return jsoncodec.String(l, &e.TranscriptPath)
	case "cwd":
		return jsoncodec.String(l, &e.Cwd)
	case "permission_mode":
		return jsoncodec.String(l, &e.PermissionMode)
	case "prompt_id":
		return jsoncodec.String(l, &e.PromptID)
	case "agent_id":
		return jsoncodec.String(l, &e.AgentID)
	case "agent_type":
		return jsoncodec.String(l, &e.AgentType)
	case "model":
		return jsoncodec.String(l, &e.Model)
	case "source":
		return jsoncodec.String(l, &e.Source)
	case "session_title":
		return jsoncodec.String(l, &e.SessionTitle)
	case "prompt":
		return jsoncodec.String(l, &e.Prompt)
	case "expansion_type":
		return jsoncodec.String(l, &e.ExpansionType)
	case "command_name":
		return jsoncodec.String(l, &e.CommandName)
	case "command_args":
		return jsoncodec.String(l, &e.CommandArgs)
	case "tool_name":
		return jsoncodec.String(l, &e.ToolName)
	case "tool_input":
		return jsoncodec.RawView(l, &e.ToolInput)
	case "tool_use_id":
		return jsoncodec.String(l, &e.ToolUseID)
	case "tool_response":
		return jsoncodec.RawView(l, &e.ToolResponse)
	case "tool_calls":
		return jsoncodec.RawView(l, &e.ToolCalls)
	case "duration_ms":
		return jsoncodec.Float(l, &e.DurationMS)
	case "error":
		return jsoncodec.String(l, &e.Error)
	case "error_details":
		return jsoncodec.String(l, &e.ErrorDetails)
	case "is_interrupt":
		return jsoncodec.Bool(l, &e.IsInterrupt)
	case "message":
		return jsoncodec.String(l, &e.Message)
	case "title":
		return jsoncodec.String(l, &e.Title)
	case "notification_type":
		return jsoncodec.String(l, &e.NotificationType)
	case "stop_hook_active":
		return jsoncodec.Bool(l, &e.StopHookActive)
	case "last_assistant_message":
		return jsoncodec.String(l, &e.LastAssistantMessage)
	case "agent_transcript_path":
		return jsoncodec.String(l, &e.AgentTranscriptPath)
	case "background_tasks":
		return jsoncodec.RawView(l, &e.BackgroundTasks)
	case "reason":
		return jsoncodec.String(l, &e.Reason)
	case "trigger":
		return jsoncodec.String(l, &e.Trigger)
	case "custom_instructions":
		return jsoncodec.StringPtr(l, &e.CustomInstructions)
	case "compact_summary":
		return jsoncodec.String(l, &e.CompactSummary)
	case "task_id":
		return jsoncodec.String(l, &e.TaskID)
	case "task_subject":
		return jsoncodec.String(l, &e.TaskSubject)
	case "task_description":
		return jsoncodec.String(l, &e.TaskDescription)
	case "old_cwd":
		return jsoncodec.String(l, &e.OldCwd)
	case "new_cwd":
		return jsoncodec.String(l, &e.NewCwd)
	case "file_path":
		return jsoncodec.String(l, &e.FilePath)
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
		return jsoncodec.String(l, &in.FilePath)
	case "notebook_path":
		return jsoncodec.String(l, &in.NotebookPath)
	case "command":
		return jsoncodec.String(l, &in.Command)
	case "description":
		return jsoncodec.String(l, &in.Description)
	case "subagent_type":
		return jsoncodec.String(l, &in.SubagentType)
	case "prompt":
		return jsoncodec.String(l, &in.Prompt)
	case "run_in_background":
		return jsoncodec.Bool(l, &in.RunInBackground)
	case "skill":
		return jsoncodec.String(l, &in.Skill)
	case "subject":
		return jsoncodec.String(l, &in.Subject)
	case "pattern":
		return jsoncodec.String(l, &in.Pattern)
	case "query":
		return jsoncodec.String(l, &in.Query)
	case "url":
		return jsoncodec.String(l, &in.URL)
	case "taskId":
		return jsoncodec.String(l, &in.TaskID)
	case "status":
		return jsoncodec.String(l, &in.Status)
	case "todos":
		return jsoncodec.List(l, &in.Todos, readTodo)
	default:
		l.SkipRecursive()
		return true
	}
}

var todoNames = []string{"content", "status", "activeForm"}

func readTodo(l *jlexer.Lexer, t *Todo) bool {
	return jsoncodec.Object(l, todoNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "content":
			return jsoncodec.String(l, &t.Content)
		case "status":
			return jsoncodec.String(l, &t.Status)
		default:
			return jsoncodec.String(l, &t.ActiveForm)
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
		return jsoncodec.String(l, &r.Type)
	case "filePath":
		return jsoncodec.String(l, &r.FilePath)
	case "status":
		return jsoncodec.String(l, &r.Status)
	case "agentId":
		return jsoncodec.String(l, &r.AgentID)
	case "agentType":
		return jsoncodec.String(l, &r.AgentType)
	case "isAsync":
		return jsoncodec.Bool(l, &r.IsAsync)
	case "content":
		return jsoncodec.Raw(l, &r.Content)
	case "totalDurationMs":
		return jsoncodec.Float(l, &r.TotalDurationMS)
	case "totalTokens":
		return jsoncodec.Int(l, &r.TotalTokens)
	case "totalToolUseCount":
		return jsoncodec.Int(l, &r.TotalToolUseCount)
	case "error":
		return jsoncodec.Raw(l, &r.Error)
	case "success":
		return jsoncodec.BoolPtr(l, &r.Success)
	case "is_error":
		return jsoncodec.Bool(l, &r.IsError)
	case "interrupted":
		return jsoncodec.Bool(l, &r.Interrupted)
	case "task":
		return readTaskRef(l, &r.Task)
	case "taskId":
		return jsoncodec.String(l, &r.TaskID)
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
	return jsoncodec.Object(l, taskRefNames, func(name string, l *jlexer.Lexer) bool {
		if name == "id" {
			return jsoncodec.String(l, &t.ID)
		}
		return jsoncodec.String(l, &t.Subject)
	})
}
