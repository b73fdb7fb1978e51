package recorder

import (
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/state"
)

// Limits on text kept in state.json (logs keep the payload, capped
// separately).
const (
	maxErrorText = state.ErrorPreviewBytes
	maxNoteText  = 1 << 10
	activityKeep = 180 // minutes of per-minute event counts
)

// applier applies one event to a session's state (docs/state.md).
type applier struct {
	ev   *hookio.Event
	name string
	now  time.Time
	root string
	// wholePrompts keeps a prompt's whole text instead of its preview
	// (History, for the export).
	wholePrompts bool
}

func (a *applier) apply(s *state.Session) {
	ev := a.ev
	s.UpdatedAt = a.now
	s.EventCounts[a.name]++
	s.LastEvent, s.LastEventAt = a.name, a.now
	countActivity(s, a.now)
	if ev.Cwd != "" {
		s.Cwd = ev.Cwd
	}
	if ev.TranscriptPath != "" {
		s.TranscriptPath = ev.TranscriptPath
	}
	if ev.Model != "" {
		s.Model = ev.Model
	}
	if ev.PermissionMode != "" {
		s.PermissionMode = ev.PermissionMode
	}
	if s.Status == state.StatusEnded && a.name != hookio.SessionEnd {
		// A resumed session without a SessionStart (or late events).
		s.Status = state.StatusWaiting
	}
	mainChain := ev.AgentID == ""

	switch a.name {
	case hookio.SessionStart:
		src := ev.Source
		if src == "" {
			src = "startup"
		}
		s.Starts = append(s.Starts, state.Start{Source: src, At: a.now})
		if src == "compact" {
			s.Compactions++
		} else {
			s.Status = state.StatusWaiting
		}
		s.SessionActive = true
		s.EndReason = ""

	case hookio.UserPromptSubmit:
		a.prompt(s)
		a.working(s)

	case hookio.PreToolUse:
		if mainChain {
			a.working(s)
			if s.TitleSource == "" {
				s.SetTitle(a.toolTitle(), state.TitleTool)
			}
		}
		if hookio.IsSubagentTool(ev.ToolName) {
			a.agentStart(s)
		}

	case hookio.PostToolUse:
		if mainChain {
			a.working(s)
		}
		a.toolDone(s)
		a.postTool(s)

	case hookio.PostToolUseFailure:
		if mainChain {
			a.working(s)
		}
		a.toolDone(s)
		msg := ev.Error
		if msg == "" {
			msg = "tool failed"
		}
		a.addError(s, state.ErrorToolFailure, msg, a.toolContext(map[string]any{"is_interrupt": ev.IsInterrupt}))
		if hookio.IsSubagentTool(ev.ToolName) {
			if e := a.findAgentForTool(s); e != nil {
				complete(s, e, a.now, state.AgentFailed)
			}
		}

	case hookio.PostToolBatch:
		if mainChain {
			a.working(s)
		}

	case hookio.PermissionRequest:
		s.Status = state.StatusNeedsInput

	case hookio.Notification:
		s.Notifications = append(s.Notifications, state.Notification{
			Timestamp: a.now,
			Message:   termtext.Cut(ev.Message, maxNoteText),
			Type:      ev.NotificationType,
			Title:     ev.Title,
		})
		if needsInput(ev) {
			s.Status = state.StatusNeedsInput
		}

	case hookio.SubagentStart:
		a.subagentStart(s)

	case hookio.SubagentStop:
		a.subagentStop(s)

	case hookio.Stop:
		s.Status = state.StatusWaiting
		s.SessionActive = false
		// The turn is over, so every foreground agent has returned even if
		// its PostToolUse never came (another hook denied the call).
		for i := range s.AgentsHistory {
			e := &s.AgentsHistory[i]
			if e.Running() && !e.Background {
				complete(s, e, a.now, state.AgentCompleted)
			}
		}

	case hookio.StopFailure:
		msg := ev.Error
		if ev.ErrorDetails != "" {
			msg += ": " + ev.ErrorDetails
		}
		if msg == "" {
			msg = "turn ended by an API error"
		}
		a.addError(s, state.ErrorStopFailure, msg, nil)
		s.Status = state.StatusWaiting
		s.SessionActive = false

	case hookio.SessionEnd:
		s.Status = state.StatusEnded
		s.SessionActive = false
		s.EndReason = ev.Reason
		if s.EndReason == "" {
			s.EndReason = "other"
		}
		// Background agents die with their session; their SubagentStop
		// will not come.
		for i := range s.AgentsHistory {
			if e := &s.AgentsHistory[i]; e.Running() {
				complete(s, e, a.now, state.AgentStopped)
			}
		}

	case hookio.TaskCreated:
		upsertTask(s, ev.TaskID, ev.TaskSubject, ev.TaskDescription, "pending", a.now)

	case hookio.TaskCompleted:
		upsertTask(s, ev.TaskID, ev.TaskSubject, ev.TaskDescription, "completed", a.now)

	case hookio.CwdChanged:
		if ev.NewCwd != "" {
			s.Cwd = ev.NewCwd
		}
	}
}

func (a *applier) working(s *state.Session) {
	s.Status = state.StatusWorking
	s.SessionActive = true
}

func (a *applier) prompt(s *state.Session) {
	p := state.Prompt{Timestamp: a.now, Prompt: a.ev.Prompt, PromptID: a.ev.PromptID}
	if strings.HasPrefix(strings.TrimSpace(p.Prompt), "<task-notification>") {
		p.Kind = state.PromptKindTaskNotification
	}
	if len(p.Prompt) > state.PromptPreviewBytes && !a.wholePrompts {
		// A preview: the whole prompt is in the user_prompt_submit log.
		p.Prompt = termtext.Cut(p.Prompt, state.PromptPreviewBytes)
		p.Truncated = true
	}
	s.Prompts = append(s.Prompts, p)
	if p.Kind == "" {
		s.SetTitle(a.ev.Prompt, state.TitlePrompt)
	}
}

// toolTitle names a tool call for a session that has no better title:
// the tool and what it works on ("Bash: go test ./...").
func (a *applier) toolTitle() string {
	in := a.ev.Input()
	what := firstNonEmpty(in.Description, in.Command, a.rel(firstNonEmpty(in.FilePath, in.NotebookPath)),
		in.Pattern, in.Query, in.URL, in.Skill, in.Subject)
	if what == "" {
		return a.ev.ToolName
	}
	return a.ev.ToolName + ": " + termtext.Cut(what, state.TitleBytes)
}

// toolDone counts a finished tool call, for the session and for the
// subagent that made it.
func (a *applier) toolDone(s *state.Session) {
	tool := a.ev.ToolName
	if tool == "" {
		tool = "unknown"
	}
	s.ToolsUsed[tool]++
	if e := s.FindAgent(a.ev.AgentID); e != nil {
		if e.ToolsUsed == nil {
			e.ToolsUsed = map[string]int{}
		}
		e.ToolsUsed[tool]++
	}
}

func (a *applier) postTool(s *state.Session) {
	ev := a.ev
	in := ev.Input()
	resp := ev.Response()
	switch ev.ToolName {
	// docs/state.md: a Write that creates is new, any other Write and every
	// Edit/MultiEdit/NotebookEdit is edited, also for a file created
	// earlier in the session (it was created, then changed).
	case "Write":
		p := a.rel(in.FilePath)
		if resp.Type == "create" {
			addFile(&s.Files.New, p)
		} else {
			addFile(&s.Files.Edited, p)
		}
	case "Edit", "MultiEdit":
		addFile(&s.Files.Edited, a.rel(in.FilePath))
	case "NotebookEdit":
		path := in.NotebookPath
		if path == "" {
			path = in.FilePath
		}
		addFile(&s.Files.Edited, a.rel(path))
	case "Read":
		addFile(&s.Files.Read, a.rel(in.FilePath))
	case "TodoWrite":
		todos := make([]state.Todo, 0, len(in.Todos))
		for _, t := range in.Todos {
			todos = append(todos, state.Todo{Content: t.Content, Status: t.Status, ActiveForm: t.ActiveForm})
		}
		s.Todos = todos
	case "TaskCreate":
		if resp.Task != nil {
			upsertTask(s, resp.Task.ID, firstNonEmpty(resp.Task.Subject, in.Subject), "", "pending", a.now)
		}
	case "TaskUpdate":
		id := firstNonEmpty(in.TaskID, resp.TaskID)
		if id != "" && in.Status != "" {
			upsertTask(s, id, "", "", in.Status, a.now)
		}
	case "Agent", "Task":
		a.agentDone(s, resp)
	}
	if msg := resp.ErrorText(); msg != "" {
		a.addError(s, state.ErrorTool, msg, a.toolContext(nil))
	}
}

func (a *applier) toolContext(extra map[string]any) map[string]any {
	c := map[string]any{"tool": a.ev.ToolName}
	if a.ev.ToolUseID != "" {
		c["tool_use_id"] = a.ev.ToolUseID
	}
	if a.ev.AgentID != "" {
		c["agent_id"] = a.ev.AgentID
	}
	if in := a.ev.Input(); in.FilePath != "" {
		c["file_path"] = a.rel(in.FilePath)
	}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

func (a *applier) addError(s *state.Session, typ, msg string, ctx map[string]any) {
	s.Errors = append(s.Errors, state.Error{
		Timestamp: a.now,
		Type:      typ,
		Message:   termtext.Cut(msg, maxErrorText),
		Context:   ctx,
	})
}

func needsInput(ev *hookio.Event) bool {
	switch ev.NotificationType {
	case "permission_prompt", "idle_prompt", "elicitation_dialog", "elicitation_url_dialog", "agent_needs_input":
		return true
	case "":
		m := strings.ToLower(ev.Message)
		return strings.Contains(m, "permission") || strings.Contains(m, "waiting for your input")
	}
	return false
}

func upsertTask(s *state.Session, id, subject, desc, status string, now time.Time) {
	if id == "" {
		return
	}
	for i := range s.Tasks {
		t := &s.Tasks[i]
		if t.ID == id {
			if subject != "" {
				t.Subject = subject
			}
			if desc != "" {
				t.Description = desc
			}
			if status != "" {
				t.Status = status
			}
			t.UpdatedAt = now
			return
		}
	}
	s.Tasks = append(s.Tasks, state.Task{ID: id, Subject: subject, Description: desc, Status: status, UpdatedAt: now})
}

func countActivity(s *state.Session, now time.Time) {
	m := now.Unix() / 60
	if n := len(s.Activity); n > 0 && s.Activity[n-1].Minute == m {
		s.Activity[n-1].Count++
		return
	}
	s.Activity = append(s.Activity, state.MinuteCount{Minute: m, Count: 1})
	if len(s.Activity) > activityKeep {
		s.Activity = s.Activity[len(s.Activity)-activityKeep:]
	}
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

// sectionsFor returns the sections of state.json that applying an event
// reads, or changes other than by appending: only those are decoded, so
// that a hook's cost does not grow with the session (see state.Section).
// Agents are followed by id through Agent/Task calls, SubagentStart/Stop,
// tool calls made inside a subagent, Stop and SessionEnd.
func sectionsFor(name string, ev *hookio.Event) state.Section {
	var need state.Section
	if ev.AgentID != "" {
		need |= state.SectionAgents
	}
	switch name {
	case hookio.PreToolUse, hookio.PostToolUse, hookio.PostToolUseFailure:
		if hookio.IsSubagentTool(ev.ToolName) {
			need |= state.SectionAgents
		}
	case hookio.SubagentStart, hookio.SubagentStop, hookio.Stop, hookio.SessionEnd:
		need |= state.SectionAgents
	}
	return need
}
