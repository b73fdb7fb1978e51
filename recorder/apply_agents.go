package recorder

import (
	"time"

	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

// How agents_history follows an agent: its Agent/Task call (PreToolUse),
// its SubagentStart (which brings the agent id), its PostToolUse
// (foreground agents complete there) and its SubagentStop.

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
