package feedback

import (
	"strings"
	"testing"
	"time"
)

// TestExplain: per domain the agents each phase expects and what the loop
// waits for; the last result not counted, with why.
func TestExplain(t *testing.T) {
	c := mustCfg(t, `feedback:
  enabled: true
  domains:
    backend:
      reviewer: backend-reviewer
      test_lead: test-lead
      tester: [backend-tester, e2e-tester]
`)
	lim := DefaultLimits()
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	l := NewLoop()
	l.Track("backend", "server.go", now)
	l.Apply(c, lim, AgentResult{Agent: "backend-reviewer", AgentID: "a1", Text: "REVIEW_APPROVED"}, now)
	l.Apply(c, lim, AgentResult{Agent: "code-reviewer", AgentID: "a2", Text: "REVIEW_APPROVED"}, now)
	ex := Explain(NewStatus(l, lim), c)
	if len(ex.Domains) != 1 {
		t.Fatalf("domains %+v", ex.Domains)
	}
	d := ex.Domains[0]
	if got, want := d.Waits, "waits for test planning by test-lead"; got != want {
		t.Errorf("waits %q, want %q", got, want)
	}
	if got := strings.Join(d.Expect[PhaseTesting], ","); got != "backend-tester,e2e-tester" {
		t.Errorf("testing expects %q", got)
	}
	if ex.Ignored.Agent != "code-reviewer" || ex.Ignored.Marker != "REVIEW_APPROVED" ||
		!strings.Contains(ex.Ignored.Why, "not a configured reviewer") || !strings.Contains(ex.Ignored.Why, "backend") {
		t.Errorf("ignored %+v", ex.Ignored)
	}
	// A failed phase waits for its agent to run it again; without the
	// configuration the agent is not named.
	l.Apply(c, lim, AgentResult{Agent: "test-lead", AgentID: "a3", Text: "TEST_PLAN_BLOCKED\n\n- no fixture"}, now)
	if got, want := Explain(NewStatus(l, lim), c).Domains[0].Waits, "test planning failed; waits for test-lead to run it again"; got != want {
		t.Errorf("after a fail: %q, want %q", got, want)
	}
	if got, want := Explain(NewStatus(l, lim), nil).Domains[0].Waits, "test planning failed; waits for its configured agent to run it again"; got != want {
		t.Errorf("no config: %q, want %q", got, want)
	}
}
