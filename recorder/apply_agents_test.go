package recorder

import (
	"fmt"
	"testing"
)

// Two background Agent calls in one turn (Claude Code 2.1.330, e2e
// agents-background): PreToolUse, PostToolUse (async_launched, agentId but
// no agentType) and SubagentStart interleave in any order. Whatever the
// order, each entry ends with its own agent_id and the agent_type its
// SubagentStart reported, and completes at its SubagentStop.
func TestBackgroundAgentsPairedInAnyOrder(t *testing.T) {
	pre := func(n int) string {
		return fmt.Sprintf(`{"session_id":"s1","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Agent","tool_use_id":"t%d","tool_input":{"description":"d%d","prompt":"p","subagent_type":"general-purpose"}}`, n, n)
	}
	post := func(n int) string {
		return fmt.Sprintf(`{"session_id":"s1","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Agent","tool_use_id":"t%d","tool_input":{"description":"d%d","prompt":"p","subagent_type":"general-purpose"},"tool_response":{"isAsync":true,"status":"async_launched","agentId":"a%d"}}`, n, n, n)
	}
	start := func(n int) string {
		return fmt.Sprintf(`{"session_id":"s1","cwd":"/p","hook_event_name":"SubagentStart","agent_id":"a%d","agent_type":"general-purpose"}`, n)
	}
	stop := func(n int) string {
		return fmt.Sprintf(`{"session_id":"s1","cwd":"/p","hook_event_name":"SubagentStop","agent_id":"a%d","agent_type":"general-purpose","last_assistant_message":"done"}`, n)
	}
	orders := map[string][]string{
		"posts before starts (seen in 2.1.330)": {pre(1), pre(2), post(1), post(2), start(2), start(1)},
		"post, start, post, start":              {pre(1), pre(2), post(1), start(2), post(2), start(1)},
		"starts first, crossed":                 {pre(1), pre(2), start(2), start(1), post(1), post(2)},
		"crossed start before the first post":   {pre(1), pre(2), start(2), post(1), start(1), post(2)},
	}
	for name, seq := range orders {
		t.Run(name, func(t *testing.T) {
			s := applyPayloads(t, "/p", append(seq, stop(1), stop(2))...)
			if len(s.AgentsHistory) != 2 {
				t.Fatalf("agents_history %+v, want 2 entries", s.AgentsHistory)
			}
			for i, e := range s.AgentsHistory {
				n := i + 1
				if e.ToolUseID != fmt.Sprintf("t%d", n) || e.AgentID != fmt.Sprintf("a%d", n) {
					t.Errorf("entry %d: tool_use_id %s, agent_id %s; want t%d, a%d", i, e.ToolUseID, e.AgentID, n, n)
				}
				if e.AgentType != "general-purpose" || !e.Background || e.Status != "completed" {
					t.Errorf("entry %d: agent_type %q, background %v, status %q", i, e.AgentType, e.Background, e.Status)
				}
			}
			if len(s.Agents) != 0 {
				t.Errorf("agents still running: %v", s.Agents)
			}
		})
	}
}
