package state

import (
	"github.com/mailru/easyjson/jlexer"
	"github.com/mailru/easyjson/jwriter"

	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
)

// writeHead writes the session's head: every field but the sections, in
// Session's order, as encoding/json would (omitempty and omitzero
// included).
func writeHead(w *jwriter.Writer, s *Session) {
	o := jsoncodec.Open(w)
	o.Key("version").Int(s.Version)
	o.Key("session_id").String(s.SessionID)
	jsoncodec.WriteTime(o.Key("created_at"), s.CreatedAt)
	jsoncodec.WriteTime(o.Key("updated_at"), s.UpdatedAt)
	o.Key("session_active").Bool(s.SessionActive)
	o.Key("status").String(s.Status)
	optString(o, "end_reason", s.EndReason)
	optString(o, "wait", s.Wait)
	optString(o, "asked", s.Asked)
	if !s.WaitSince.IsZero() {
		jsoncodec.WriteTime(o.Key("wait_since"), s.WaitSince)
	}
	o.Key("project_dir").String(s.ProjectDir)
	optString(o, "branch", s.Branch)
	optString(o, "cwd", s.Cwd)
	optString(o, "transcript_path", s.TranscriptPath)
	optString(o, "model", s.Model)
	optString(o, "permission_mode", s.PermissionMode)
	optString(o, "title", s.Title)
	optString(o, "title_source", s.TitleSource)
	jsoncodec.WriteList(o.Key("agents"), s.Agents, jsoncodec.WriteString)
	jsoncodec.WriteMap(o.Key("tools_used"), s.ToolsUsed, jsoncodec.WriteInt[int])
	o.Key("prompts_total").Int(s.PromptsTotal)
	o.Key("errors_total").Int(s.ErrorsTotal)
	o.Key("notifications_total").Int(s.NotificationsTotal)
	o.Key("agents_total").Int(s.AgentsTotal)
	if len(s.Todos) > 0 {
		jsoncodec.WriteList(o.Key("todos"), s.Todos, writeTodo)
	}
	if len(s.Tasks) > 0 {
		jsoncodec.WriteList(o.Key("tasks"), s.Tasks, writeTask)
	}
	writeTokens(o.Key("tokens"), s.Tokens)
	o.Key("compactions").Int(s.Compactions)
	jsoncodec.WriteList(o.Key("starts"), s.Starts, writeStart)
	jsoncodec.WriteMap(o.Key("event_counts"), s.EventCounts, jsoncodec.WriteInt[int])
	optString(o, "last_event", s.LastEvent)
	if !s.LastEventAt.IsZero() {
		jsoncodec.WriteTime(o.Key("last_event_at"), s.LastEventAt)
	}
	if len(s.Activity) > 0 {
		jsoncodec.WriteList(o.Key("activity"), s.Activity, writeMinuteCount)
	}
	if !s.Transcript.IsZero() {
		writeCursor(o.Key("transcript_cursor"), s.Transcript)
	}
	if len(s.Subagents) > 0 || len(s.lz.doneAgents) > 0 {
		writeSubagents(o.Key("subagents"), s.Subagents, s.lz.doneAgents)
	}
	if s.ClaudeCost != nil {
		writeClaudeCost(o.Key("claude_cost"), *s.ClaudeCost)
	}
	optString(o, "forked_from", s.ForkedFrom)
	if len(s.Inherited) > 0 {
		jsoncodec.WriteMap(o.Key("inherited"), s.Inherited, writeModelUsage)
	}
	if s.InheritedCost != nil {
		writeClaudeCost(o.Key("inherited_cost"), *s.InheritedCost)
	}
	if s.Live != nil {
		writeLive(o.Key("live"), *s.Live)
	}
	if s.GitHead != (gitrepo.HeadCache{}) {
		writeHeadCache(o.Key("git_head"), s.GitHead)
	}
	if len(s.Gates) > 0 {
		jsoncodec.WriteMap(o.Key("gates"), s.Gates, writeGateState)
	}
	if len(s.Notes) > 0 {
		jsoncodec.WriteMap(o.Key("notes"), s.Notes, jsoncodec.WriteBool)
	}
	if !s.Terminal.IsZero() {
		writeTerminal(o.Key("terminal"), s.Terminal)
	}
	if s.ClaudePID != 0 {
		o.Key("claude_pid").Int(s.ClaudePID)
	}
	if len(s.SectionSums) > 0 {
		jsoncodec.WriteList(o.Key("section_sums"), s.SectionSums, jsoncodec.WriteInt[int64])
	}
	o.Close()
}

// optString writes a string member that omitempty leaves out when empty.
func optString(o *jsoncodec.ObjectWriter, name, v string) {
	if v != "" {
		o.Key(name).String(v)
	}
}

// headNames are the head's member names (Session's JSON names but the
// sections').
var headNames = []string{
	"version", "session_id", "created_at", "updated_at", "session_active", "status",
	"end_reason", "wait", "asked", "wait_since", "project_dir", "branch", "cwd", "transcript_path", "model",
	"permission_mode", "title", "title_source", "agents", "tools_used",
	"prompts_total", "errors_total", "notifications_total", "agents_total",
	"todos", "tasks", "tokens", "compactions", "starts", "event_counts",
	"last_event", "last_event_at", "activity", "transcript_cursor", "subagents", "claude_cost", "forked_from", "inherited", "inherited_cost", "live", "git_head",
	"gates", "notes", "terminal", "claude_pid", "section_sums",
}

// readHeadMember reads the head member name into s.
func (s *Session) readHeadMember(name string, l *jlexer.Lexer) bool {
	switch name {
	case "version":
		return jsoncodec.Int(l, &s.Version)
	case "session_id":
		return jsoncodec.String(l, &s.SessionID)
	case "created_at":
		return jsoncodec.Time(l, &s.CreatedAt)
	case "updated_at":
		return jsoncodec.Time(l, &s.UpdatedAt)
	case "session_active":
		return jsoncodec.Bool(l, &s.SessionActive)
	case "status":
		return jsoncodec.String(l, &s.Status)
	case "end_reason":
		return jsoncodec.String(l, &s.EndReason)
	case "wait":
		return jsoncodec.String(l, &s.Wait)
	case "asked":
		return jsoncodec.String(l, &s.Asked)
	case "wait_since":
		return jsoncodec.Time(l, &s.WaitSince)
	case "project_dir":
		return jsoncodec.String(l, &s.ProjectDir)
	case "branch":
		return jsoncodec.String(l, &s.Branch)
	case "cwd":
		return jsoncodec.String(l, &s.Cwd)
	case "transcript_path":
		return jsoncodec.String(l, &s.TranscriptPath)
	case "model":
		return jsoncodec.String(l, &s.Model)
	case "permission_mode":
		return jsoncodec.String(l, &s.PermissionMode)
	case "title":
		return jsoncodec.String(l, &s.Title)
	case "title_source":
		return jsoncodec.String(l, &s.TitleSource)
	case "agents":
		return jsoncodec.List(l, &s.Agents, jsoncodec.String)
	case "tools_used":
		return jsoncodec.Map(l, &s.ToolsUsed, jsoncodec.Int[int])
	case "prompts_total":
		return jsoncodec.Int(l, &s.PromptsTotal)
	case "errors_total":
		return jsoncodec.Int(l, &s.ErrorsTotal)
	case "notifications_total":
		return jsoncodec.Int(l, &s.NotificationsTotal)
	case "agents_total":
		return jsoncodec.Int(l, &s.AgentsTotal)
	case "todos":
		return jsoncodec.List(l, &s.Todos, readTodo)
	case "tasks":
		return jsoncodec.List(l, &s.Tasks, readTask)
	case "tokens":
		return readTokens(l, &s.Tokens)
	case "compactions":
		return jsoncodec.Int(l, &s.Compactions)
	case "starts":
		return jsoncodec.List(l, &s.Starts, readStart)
	case "event_counts":
		return jsoncodec.Map(l, &s.EventCounts, jsoncodec.Int[int])
	case "last_event":
		return jsoncodec.String(l, &s.LastEvent)
	case "last_event_at":
		return jsoncodec.Time(l, &s.LastEventAt)
	case "activity":
		return jsoncodec.List(l, &s.Activity, readMinuteCount)
	case "transcript_cursor":
		return readCursor(l, &s.Transcript)
	case "subagents":
		return s.readSubagents(l)
	case "claude_cost":
		return jsoncodec.Ptr(l, &s.ClaudeCost, readClaudeCost)
	case "forked_from":
		return jsoncodec.String(l, &s.ForkedFrom)
	case "inherited":
		return jsoncodec.Map(l, &s.Inherited, readModelUsage)
	case "inherited_cost":
		return jsoncodec.Ptr(l, &s.InheritedCost, readClaudeCost)
	case "live":
		return jsoncodec.Ptr(l, &s.Live, readLive)
	case "git_head":
		return readHeadCache(l, &s.GitHead)
	case "gates":
		return jsoncodec.Map(l, &s.Gates, readGateState)
	case "terminal":
		return readTerminal(l, &s.Terminal)
	case "claude_pid":
		return jsoncodec.Int(l, &s.ClaudePID)
	case "section_sums":
		return jsoncodec.List(l, &s.SectionSums, jsoncodec.Int[int64])
	default: // notes
		return jsoncodec.Map(l, &s.Notes, jsoncodec.Bool)
	}
}
