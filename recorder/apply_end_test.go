package recorder

import (
	"testing"

	"github.com/dylan-gluck/spcstr/state"
)

// A background agent still running when its session ends will never send
// its SubagentStop: SessionEnd closes it as stopped, and leaves completed
// agents alone.
func TestSessionEndStopsRunningAgents(t *testing.T) {
	s := play(t, "/p",
		pre("Agent", "t1", agentIn("tester", "run tests", true)),
		post("Agent", "t1", agentIn("tester", "run tests", true), agentAsync("a1")),
		subStart("a1", "tester"),
		pre("Agent", "t2", agentIn("reviewer", "review", false)),
		subStart("a2", "reviewer"),
		post("Agent", "t2", agentIn("reviewer", "review", false), agentDone("a2", "reviewer", "REVIEW_APPROVED")),
		stop,
		sessionEnd,
	)
	if len(s.Agents) != 0 {
		t.Errorf("agents still running after SessionEnd: %v", s.Agents)
	}
	for _, a := range s.AgentsHistory {
		want := state.AgentCompleted
		if a.AgentID == "a1" {
			want = state.AgentStopped
		}
		if a.Running() || a.Status != want {
			t.Errorf("agent %s: running %v status %q, want %q", a.AgentID, a.Running(), a.Status, want)
		}
	}
}
