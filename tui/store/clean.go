package store

import (
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/text"
)

// clean is the single place untrusted text from a state.json becomes safe
// to print (text.Sanitize): every string the panes show, so that no pane
// needs to sanitise at draw time.
func clean(s *state.Session) {
	c := text.Sanitize
	s.SessionID, s.Status, s.EndReason = c(s.SessionID), c(s.Status), c(s.EndReason)
	s.ProjectDir, s.Branch, s.Cwd, s.Model = c(s.ProjectDir), c(s.Branch), c(s.Cwd), c(s.Model)
	s.Title, s.TitleSource = c(s.Title), c(s.TitleSource)
	if len(s.Tokens.ByModel) > 0 {
		by := make(map[string]state.ModelUsage, len(s.Tokens.ByModel))
		for k, v := range s.Tokens.ByModel {
			by[c(k)] = v
		}
		s.Tokens.ByModel = by
	}
	cleanAll(s.Agents)
	for i := range s.AgentsHistory {
		a := &s.AgentsHistory[i]
		a.Name, a.AgentType, a.Description = c(a.Name), c(a.AgentType), c(a.Description)
		a.Status, a.Result, a.Marker = c(a.Status), c(a.Result), c(a.Marker)
		a.ToolsUsed = cleanKeys(a.ToolsUsed)
	}
	cleanAll(s.Files.New)
	cleanAll(s.Files.Edited)
	cleanAll(s.Files.Read)
	s.ToolsUsed = cleanKeys(s.ToolsUsed)
	s.EventCounts = cleanKeys(s.EventCounts)
	for i := range s.Errors {
		s.Errors[i].Type, s.Errors[i].Message = c(s.Errors[i].Type), c(s.Errors[i].Message)
		if tool, ok := s.Errors[i].Context["tool"].(string); ok {
			s.Errors[i].Context["tool"] = c(tool)
		}
	}
	for i := range s.Prompts {
		s.Prompts[i].Prompt = c(s.Prompts[i].Prompt)
	}
	for i := range s.Notifications {
		n := &s.Notifications[i]
		n.Message, n.Type, n.Title = c(n.Message), c(n.Type), c(n.Title)
	}
	for i := range s.Todos {
		s.Todos[i].Content, s.Todos[i].Status = c(s.Todos[i].Content), c(s.Todos[i].Status)
	}
	for i := range s.Tasks {
		t := &s.Tasks[i]
		t.ID, t.Subject, t.Description, t.Status = c(t.ID), c(t.Subject), c(t.Description), c(t.Status)
	}
}

// cleanEvent sanitises the text fields of a log entry read for the tail.
func cleanEvent(e *Event) {
	c := text.Sanitize
	e.Session, e.Event, e.Tool, e.Detail, e.Agent, e.Error = c(e.Session), c(e.Event), c(e.Tool), c(e.Detail), c(e.Agent), c(e.Error)
	if d := e.Gate; d != nil {
		d.Hook, d.Decision, d.Enforcement, d.Message, d.Judged = c(d.Hook), c(d.Decision), c(d.Enforcement), c(d.Message), c(d.Judged)
	}
}

func cleanAll(xs []string) {
	for i := range xs {
		xs[i] = text.Sanitize(xs[i])
	}
}

// cleanKeys sanitises a count map's keys (two keys that become one add up).
func cleanKeys(m map[string]int) map[string]int {
	dirty := false
	for k := range m {
		if text.Sanitize(k) != k {
			dirty = true
			break
		}
	}
	if !dirty {
		return m
	}
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[text.Sanitize(k)] += v
	}
	return out
}
