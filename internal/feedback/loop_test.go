package feedback

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// step is one event in a phase-machine test: a change (domain != "") or an
// agent's result.
type step struct {
	domain, file string
	agent, text  string
	id, err      string
}

func edit(domain, file string) step      { return step{domain: domain, file: file} }
func agent(name, text string) step       { return step{agent: name, text: text} }
func agentID(name, id, text string) step { return step{agent: name, id: id, text: text} }

const (
	approved = "## Review Result\n\nREVIEW_APPROVED"
	rejected = "## Review Result\n\nREVIEW_REJECTED\n\n- nil map write in Track"
	ready    = "TEST_PLAN_READY"
	blocked  = "TEST_PLAN_BLOCKED"
	passed   = "TESTS_PASSED"
	failed   = "## Test Result\n\nTESTS_FAILED\n\n- TestTrack: got 2 domains"
)

// statuses renders every domain's phases as "domain:RTP" with R/T/P one of
// P (pass), F (fail), - (not run), in modified_domains order.
func statuses(l *Loop) string {
	var parts []string
	for _, d := range l.ModifiedDomains {
		s := d + ":"
		for _, p := range Phases {
			switch l.DomainPhases[d].Get(p).Status {
			case Pass:
				s += "P"
			case Fail:
				s += "F"
			default:
				s += "-"
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestPhaseMachine(t *testing.T) {
	c := mustCfg(t, `feedback:
  enabled: true
  rules:
    - domain: integration
      paths: ["integration/**"]
  domains:
    python:
      reviewer: backend-reviewer
`)
	lim := DefaultLimits()
	lim.Domains = map[string]DomainLimits{"frontend": {MaxConsecutiveTestFailures: 5}}
	tests := []struct {
		name      string
		steps     []step
		want      string // statuses()
		iteration int
		failures  map[string]Counters
		escalate  string // escalation reason, "" none
		pending   []string
	}{
		{name: "full pass", steps: []step{edit("backend", "a.go"), agent("backend-reviewer", approved), agent("test-lead", ready), agent("backend-tester", passed)},
			want: "backend:PPP", iteration: 1},
		{name: "review rejected then approved resets the counter",
			steps: []step{edit("backend", "a.go"), agent("backend-reviewer", rejected), agent("backend-reviewer", rejected), agent("backend-reviewer", approved)},
			want:  "backend:P--", iteration: 1, failures: map[string]Counters{"backend": {}}, pending: []string{"backend"}},
		{name: "missing marker is a FAIL and counts",
			steps: []step{edit("backend", "a.go"), agent("backend-reviewer", "Looks fine to me.")},
			want:  "backend:F--", iteration: 1, failures: map[string]Counters{"backend": {Review: 1}}, pending: []string{"backend"}},
		{name: "agent call failure is a FAIL",
			steps: []step{edit("backend", "a.go"), {agent: "backend-tester", err: "interrupted"}},
			want:  "backend:--F", iteration: 1, failures: map[string]Counters{"backend": {Testing: 1}}, pending: []string{"backend"}},
		{name: "wrong marker for the role is a FAIL",
			steps: []step{edit("backend", "a.go"), agent("backend-reviewer", passed)},
			want:  "backend:F--", iteration: 1, failures: map[string]Counters{"backend": {Review: 1}}, pending: []string{"backend"}},
		{name: "an agent without a role changes nothing",
			steps: []step{edit("backend", "a.go"), agent("general-purpose", approved), agent("reviewer", approved)},
			want:  "backend:---", iteration: 1, pending: []string{"backend"}},
		{name: "test-lead counts for every domain in the cycle",
			steps: []step{edit("backend", "a.go"), edit("frontend", "ui/a.tsx"), edit("integration", "integration/x.go"),
				agent("backend-reviewer", approved), agent("frontend-reviewer", approved), agent("integration-reviewer", approved), agent("test-lead", ready)},
			want: "backend:PP- frontend:PP- integration:PP-", iteration: 1, pending: []string{"backend", "frontend", "integration"}},
		{name: "passes count only in order",
			steps: []step{edit("backend", "a.go"), agent("backend-tester", passed), agent("test-lead", ready), agent("backend-reviewer", approved),
				agent("backend-tester", passed)},
			want: "backend:P--", iteration: 1, pending: []string{"backend"}},
		{name: "in order, the loop completes",
			steps: []step{edit("backend", "a.go"), agent("backend-tester", passed), agent("backend-reviewer", approved), agent("test-lead", ready),
				agent("backend-tester", passed)},
			want: "backend:PPP", iteration: 1},
		{name: "reviewer counts only for its domains",
			steps: []step{edit("backend", "a.go"), edit("frontend", "ui/a.tsx"), edit("python", "x.py"), agent("backend-reviewer", approved)},
			want:  "backend:P-- frontend:--- python:P--", iteration: 1, pending: []string{"backend", "frontend", "python"}},
		{name: "TESTS_FAILED resets every phase of every domain and counts an iteration",
			steps: []step{edit("backend", "a.go"), edit("frontend", "ui/a.tsx"),
				agent("backend-reviewer", approved), agent("frontend-reviewer", approved), agent("test-lead", ready),
				agent("frontend-tester", passed), agent("backend-tester", failed)},
			want: "backend:--- frontend:---", iteration: 2, failures: map[string]Counters{"backend": {Testing: 1}, "frontend": {}},
			pending: []string{"backend", "frontend"}},
		{name: "missing tester marker fails without a reset",
			steps: []step{edit("backend", "a.go"), agent("backend-reviewer", approved), agent("backend-tester", "ran them")},
			want:  "backend:P-F", iteration: 1, failures: map[string]Counters{"backend": {Testing: 1}}, pending: []string{"backend"}},
		{name: "a change after results makes the domain stale",
			steps: []step{edit("backend", "a.go"), agent("backend-reviewer", approved), agent("test-lead", ready), edit("backend", "b.go")},
			want:  "backend:---", iteration: 1, pending: []string{"backend"}},
		{name: "a change in another domain leaves the first alone",
			steps: []step{edit("backend", "a.go"), agent("backend-reviewer", approved), edit("frontend", "ui/a.tsx")},
			want:  "backend:P-- frontend:---", iteration: 1, pending: []string{"backend", "frontend"}},
		{name: "one agent id counts once (SubagentStop and PostToolUse)",
			steps: []step{edit("backend", "a.go"), agentID("backend-reviewer", "a1", rejected), agentID("backend-reviewer", "a1", rejected)},
			want:  "backend:F--", iteration: 1, failures: map[string]Counters{"backend": {Review: 1}}, pending: []string{"backend"}},
		{name: "three review failures escalate, per domain",
			steps: []step{edit("backend", "a.go"), edit("frontend", "ui/a.tsx"),
				agent("backend-reviewer", rejected), agent("frontend-reviewer", rejected), agent("backend-reviewer", rejected),
				agent("frontend-reviewer", approved), agent("backend-reviewer", rejected)},
			want: "backend:F-- frontend:P--", iteration: 1, failures: map[string]Counters{"backend": {Review: 3}, "frontend": {}},
			escalate: "review_failures:backend", pending: []string{"backend", "frontend"}},
		{name: "three test-plan blocks escalate",
			steps: []step{edit("backend", "a.go"), agent("test-lead", blocked), agent("test-lead", blocked), agent("test-lead", blocked)},
			want:  "backend:-F-", iteration: 1, failures: map[string]Counters{"backend": {TestPlanning: 3}},
			escalate: "planning_failures:backend", pending: []string{"backend"}},
		{name: "per-domain override raises the test failure limit",
			steps: []step{edit("frontend", "ui/a.tsx"), agent("frontend-tester", failed), agent("frontend-tester", failed), agent("frontend-tester", failed)},
			want:  "frontend:---", iteration: 4, failures: map[string]Counters{"frontend": {Testing: 3}}, pending: []string{"frontend"}},
		{name: "three test failures escalate with the global limit",
			steps: []step{edit("backend", "a.go"), agent("backend-tester", failed), agent("backend-tester", failed), agent("backend-tester", failed)},
			want:  "backend:---", iteration: 4, failures: map[string]Counters{"backend": {Testing: 3}},
			escalate: "test_failures:backend", pending: []string{"backend"}},
		{name: "max_feedback_iterations escalates",
			steps: []step{edit("frontend", "ui/a.tsx"),
				agent("frontend-tester", failed), agent("frontend-tester", failed), agent("frontend-tester", failed), agent("frontend-tester", failed),
				agent("frontend-tester", failed)},
			want: "frontend:---", iteration: 6, failures: map[string]Counters{"frontend": {Testing: 5}},
			escalate: "max_feedback_iterations", pending: []string{"frontend"}},
		{name: "results after escalation are ignored",
			steps: []step{edit("backend", "a.go"), agent("test-lead", blocked), agent("test-lead", blocked), agent("test-lead", blocked),
				agent("backend-reviewer", approved)},
			want: "backend:-F-", iteration: 1, failures: map[string]Counters{"backend": {TestPlanning: 3}},
			escalate: "planning_failures:backend", pending: []string{"backend"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLoop()
			now := time.Date(2026, 1, 18, 10, 0, 0, 0, time.UTC)
			for i, s := range tt.steps {
				now = now.Add(time.Minute)
				if s.domain != "" {
					l.Track(s.domain, s.file, now)
					continue
				}
				id := s.id
				if id == "" {
					id = "agent-" + string(rune('a'+i))
				}
				l.Apply(c, lim, AgentResult{Agent: s.agent, AgentID: id, Text: s.text, Error: s.err}, now)
			}
			if got := statuses(l); got != tt.want {
				t.Errorf("statuses = %q, want %q", got, tt.want)
			}
			if l.Iteration != tt.iteration {
				t.Errorf("iteration = %d, want %d", l.Iteration, tt.iteration)
			}
			for d, want := range tt.failures {
				if got := *l.Failures[d]; got != want {
					t.Errorf("failures[%s] = %+v, want %+v", d, got, want)
				}
			}
			gotEsc := ""
			if l.Escalation != nil {
				gotEsc = l.Escalation.Reason
			}
			if gotEsc != tt.escalate {
				t.Errorf("escalation = %q, want %q", gotEsc, tt.escalate)
			}
			if got := l.Pending(); !reflect.DeepEqual(got, tt.pending) {
				t.Errorf("pending = %v, want %v", got, tt.pending)
			}
		})
	}
}

func TestApplyDetails(t *testing.T) {
	c := mustCfg(t, "feedback:\n  enabled: true\n")
	lim := DefaultLimits()
	now := time.Date(2026, 1, 18, 10, 0, 0, 0, time.UTC)
	l := NewLoop()
	l.Track("backend", "a.go", now)
	out := l.Apply(c, lim, AgentResult{Agent: "backend-reviewer", AgentID: "x", Text: rejected}, now)
	if len(out.Applied) != 1 || out.Applied[0].Status != Fail || out.Applied[0].Marker != MarkerReviewRejected {
		t.Fatalf("applied = %+v", out.Applied)
	}
	ph := l.DomainPhases["backend"].Review
	if ph.Agent != "backend-reviewer" || ph.AgentID != "x" || ph.RanAt == nil || !reflect.DeepEqual(ph.Issues, []string{"nil map write in Track"}) {
		t.Fatalf("phase = %+v", ph)
	}
	out = l.Apply(c, lim, AgentResult{Agent: "backend-reviewer", AgentID: "y", Text: "no verdict"}, now)
	if !strings.Contains(l.DomainPhases["backend"].Review.Issues[0], "no result marker") {
		t.Fatalf("missing marker issue = %q", l.DomainPhases["backend"].Review.Issues)
	}
	out = l.Apply(c, lim, AgentResult{Agent: "backend-tester", AgentID: "z", Text: failed}, now)
	if !out.Reset || l.LastFailure == nil || l.LastFailure.Marker != MarkerTestsFailed {
		t.Fatalf("reset = %v, last failure = %+v", out.Reset, l.LastFailure)
	}
	kinds := []string{}
	for _, h := range l.History {
		kinds = append(kinds, h.Kind)
	}
	if want := []string{KindStarted, KindResult, KindResult, KindResult, KindReset}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("history kinds = %v, want %v", kinds, want)
	}
	// A pass out of order is logged and not counted.
	out = l.Apply(c, lim, AgentResult{Agent: "backend-tester", AgentID: "w", Text: passed}, now)
	last := l.History[len(l.History)-1]
	if len(out.Applied) != 0 || last.Kind != KindOutOfOrder || last.Domain != "backend" ||
		last.Note != "TESTS_PASSED came before review of backend passed: not counted (phases count only in order)" {
		t.Fatalf("out of order: applied %+v, last %+v", out.Applied, last)
	}
	// A loop that is not active takes no results.
	idle := NewLoop()
	if out := idle.Apply(c, lim, AgentResult{Agent: "backend-reviewer", Text: approved}, now); len(out.Applied) != 0 {
		t.Fatalf("inactive loop applied %+v", out)
	}
	// Completion, then a new change starts a fresh loop with history kept.
	l2 := NewLoop()
	l2.Track("backend", "a.go", now)
	l2.Complete(now)
	l2.Track("frontend", "ui/a.tsx", now.Add(time.Hour))
	if !l2.Active || l2.Loops != 2 || l2.Iteration != 1 || !reflect.DeepEqual(l2.ModifiedDomains, []string{"frontend"}) || len(l2.History) != 3 {
		t.Fatalf("restarted loop = %+v", l2)
	}
}

func TestPhaseRunning(t *testing.T) {
	ran := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name  string
		phase Phase
		want  bool
	}{
		{"not started", Phase{Status: NotRun}, false},
		{"agent spawned", Phase{Status: NotRun, AgentID: "a1"}, true},
		{"agent spawned, empty status", Phase{AgentID: "a1"}, true},
		{"agent reported", Phase{Status: NotRun, AgentID: "a1", RanAt: &ran}, false},
		{"passed", Phase{Status: Pass, AgentID: "a1"}, false},
		{"failed", Phase{Status: Fail, AgentID: "a1"}, false},
	}
	for _, tt := range tests {
		if got := tt.phase.Running(); got != tt.want {
			t.Errorf("%s: Running() = %v, want %v", tt.name, got, tt.want)
		}
	}
}
