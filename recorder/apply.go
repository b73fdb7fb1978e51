package recorder

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

// Limits on text kept in state.json (logs keep the payload, capped
// separately).
const (
	maxErrorText = 4 << 10
	maxNoteText  = 4 << 10
	activityKeep = 180 // minutes of per-minute event counts
)

// applier applies one event to a session's state (docs/state.md).
type applier struct {
	ev        *hookio.Event
	name      string
	now       time.Time
	root      string
	promptCap int
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
			Message:   state.Truncate(ev.Message, maxNoteText),
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
	if len(p.Prompt) > a.promptCap {
		p.Prompt = state.Truncate(p.Prompt, a.promptCap)
		p.Truncated = true
	}
	s.Prompts = append(s.Prompts, p)
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
		Message:   state.Truncate(msg, maxErrorText),
		Context:   ctx,
	})
}

// agentStart records an Agent/Task call at its PreToolUse.
func (a *applier) agentStart(s *state.Session) {
	ev := a.ev
	if ev.ToolUseID != "" {
		for i := range s.AgentsHistory {
			if s.AgentsHistory[i].ToolUseID == ev.ToolUseID {
				return // already recorded
			}
		}
	}
	in := ev.Input()
	name := in.SubagentType
	if name == "" {
		name = "general-purpose"
	}
	s.AgentsHistory = append(s.AgentsHistory, state.Agent{
		Name:        name,
		Description: in.Description,
		ToolUseID:   ev.ToolUseID,
		Background:  in.RunInBackground,
		StartedAt:   a.now,
		Status:      state.AgentRunning,
	})
	s.Agents = append(s.Agents, name)
}

// findAgentForTool finds the agents_history entry of this Agent/Task call.
func (a *applier) findAgentForTool(s *state.Session) *state.Agent {
	if id := a.ev.ToolUseID; id != "" {
		for i := range s.AgentsHistory {
			if s.AgentsHistory[i].ToolUseID == id {
				return &s.AgentsHistory[i]
			}
		}
	}
	// Older versions without tool_use_id: the oldest running entry of
	// that type without one.
	name := a.ev.Input().SubagentType
	if name == "" {
		name = "general-purpose"
	}
	for i := range s.AgentsHistory {
		e := &s.AgentsHistory[i]
		if e.Running() && e.ToolUseID == "" && e.Name == name {
			return e
		}
	}
	return nil
}

// agentDone handles an Agent/Task PostToolUse: a foreground agent completes;
// a background launch only learns its agent id.
func (a *applier) agentDone(s *state.Session, resp hookio.ToolResponse) {
	e := a.findAgentForTool(s)
	if e == nil {
		// The PreToolUse was not seen: record the call now.
		a.agentStart(s)
		e = a.findAgentForTool(s)
		if e == nil {
			return
		}
		if a.ev.DurationMS > 0 {
			e.StartedAt = a.now.Add(-time.Duration(a.ev.DurationMS * float64(time.Millisecond)))
		}
	}
	if resp.AgentID != "" && e.AgentID != resp.AgentID {
		// SubagentStart pairing is by type and order; the response is
		// authoritative. An agent_type learnt from a SubagentStart belongs
		// to that agent_id, so it moves with the id: swap both with an
		// entry that took this id, or hand e's old id to a call still
		// waiting for its SubagentStart.
		other := s.FindAgent(resp.AgentID)
		oldID, oldType := e.AgentID, e.AgentType
		e.AgentID, e.AgentType = resp.AgentID, ""
		switch {
		case other != nil && other != e:
			e.AgentType = other.AgentType
			other.AgentID, other.AgentType = oldID, oldType
		case oldID != "":
			if w := unpairedAgent(s, oldType); w != nil {
				w.AgentID, w.AgentType = oldID, oldType
			}
		}
	}
	if resp.AgentType != "" {
		e.AgentType = resp.AgentType
	}
	if resp.Background() {
		e.Background = true
		return
	}
	if resp.TotalDurationMS > 0 {
		e.DurationMS = resp.TotalDurationMS
	}
	if resp.TotalTokens > 0 {
		e.TotalTokens = resp.TotalTokens
	}
	if m, ok := feedback.ParseMarker(resp.Text()); ok {
		e.Marker, e.Result = m.Name, m.Result()
	}
	if e.Running() {
		complete(s, e, a.now, state.AgentCompleted)
	}
}

// subagentStart pairs a SubagentStart with the Agent call that spawned it.
func (a *applier) subagentStart(s *state.Session) {
	ev := a.ev
	if ev.AgentID == "" {
		return
	}
	if e := s.FindAgent(ev.AgentID); e != nil {
		// A background launch's PostToolUse (status async_launched, which
		// carries agentId but no agentType) can come first.
		if e.AgentType == "" {
			e.AgentType = ev.AgentType
		}
		return
	}
	if e := unpairedAgent(s, ev.AgentType); e != nil {
		e.AgentID, e.AgentType = ev.AgentID, ev.AgentType
		return
	}
	if ev.AgentType == "" {
		return
	}
	// Spawned without a visible Agent call (e.g. by another subagent).
	s.AgentsHistory = append(s.AgentsHistory, state.Agent{
		Name: ev.AgentType, AgentID: ev.AgentID, AgentType: ev.AgentType,
		StartedAt: a.now, Status: state.AgentRunning,
	})
	s.Agents = append(s.Agents, ev.AgentType)
}

// unpairedAgent returns the oldest running agents_history entry that has no
// agent_id yet and was requested as agentType (any type when it is empty).
func unpairedAgent(s *state.Session, agentType string) *state.Agent {
	for i := range s.AgentsHistory {
		e := &s.AgentsHistory[i]
		if e.Running() && e.AgentID == "" && (e.Name == agentType || agentType == "") {
			return e
		}
	}
	return nil
}

// subagentStop records a subagent's result and completes background agents
// (foreground ones complete at their PostToolUse). A SubagentStop of an
// agent never started, with an empty type, is one of Claude Code's internal
// helpers (compaction, recaps): it is logged, not counted.
func (a *applier) subagentStop(s *state.Session) {
	ev := a.ev
	e := s.FindAgent(ev.AgentID)
	if e == nil {
		if ev.AgentType == "" {
			return
		}
		for i := range s.AgentsHistory {
			c := &s.AgentsHistory[i]
			if c.Running() && c.AgentID == "" && c.Name == ev.AgentType {
				e = c
				e.AgentID = ev.AgentID
				break
			}
		}
		if e == nil {
			return
		}
	}
	if m, ok := feedback.ParseMarker(ev.LastAssistantMessage); ok {
		e.Marker, e.Result = m.Name, m.Result()
	}
	if e.Running() && (e.Background || e.ToolUseID == "") {
		complete(s, e, a.now, state.AgentCompleted)
	}
}

func complete(s *state.Session, e *state.Agent, now time.Time, status string) {
	t := now
	e.CompletedAt = &t
	e.Status = status
	if e.DurationMS == 0 {
		e.DurationMS = float64(now.Sub(e.StartedAt)) / float64(time.Millisecond)
	}
	for i, n := range s.Agents {
		if n == e.Name {
			s.Agents = append(s.Agents[:i], s.Agents[i+1:]...)
			break
		}
	}
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

// rel makes a tool's file path relative to the project root when it is
// inside it. Absolute paths are cleaned first ("root/src/../a.go" is
// "a.go", "root/../x" is outside). Windows paths (C:\..., and Git Bash's
// /c/... when the other side is a C:\ path) are compared case-insensitively
// with forward slashes; other paths are compared exactly, as the file
// systems they come from are case-sensitive.
func (a *applier) rel(p string) string {
	if p == "" {
		return ""
	}
	root := a.root
	if filepath.IsAbs(p) {
		p = filepath.Clean(p)
	}
	if root != "" {
		if p == root {
			return "."
		}
		if r, ok := strings.CutPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator)); ok {
			return r
		}
	}
	if !isWindowsPath(p) && !isWindowsPath(root) {
		return p
	}
	np, nr := winNorm(p), winNorm(root)
	if nr != "" && strings.HasPrefix(strings.ToLower(np), strings.ToLower(nr)+"/") {
		return np[len(nr)+1:]
	}
	return p
}

// isWindowsPath reports whether p is written the Windows way: a drive
// letter ("C:") or a backslash.
func isWindowsPath(p string) bool {
	return (len(p) >= 2 && p[1] == ':' && isLetter(p[0])) || strings.Contains(p, `\`)
}

func winNorm(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	// Git Bash form /c/Users/... → c:/Users/...
	if len(p) >= 3 && p[0] == '/' && p[2] == '/' && isLetter(p[1]) {
		p = p[1:2] + ":" + p[2:]
	}
	if len(p) >= 2 && p[1] == ':' && isLetter(p[0]) {
		p = strings.ToLower(p[:1]) + p[1:]
	}
	return strings.TrimSuffix(p, "/")
}

func isLetter(b byte) bool { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') }

func addFile(list *[]string, p string) {
	if p == "" || contains(*list, p) {
		return
	}
	*list = append(*list, p)
}

func contains(list []string, p string) bool {
	for _, x := range list {
		if x == p {
			return true
		}
	}
	return false
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}
