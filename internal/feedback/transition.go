package feedback

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// How the loop moves: a tracked change starts or widens it, an agent's
// result advances or fails a phase, and the limits escalate it.

// Track notes a change to file in domain. It starts a loop when none is
// active, adds the domain to an active one, and resets a domain whose
// phases already had results (they reviewed and tested older code). It
// reports whether anything changed.
func (l *Loop) Track(domain, file string, now time.Time) bool {
	l.normalize()
	if !l.Active {
		l.Active = true
		l.StartedAt, l.CompletedAt = now, nil
		l.Iteration = 1
		l.ModifiedDomains = []string{}
		l.ModifiedFiles = nil
		l.DomainPhases = map[string]*DomainPhases{}
		l.Failures = map[string]*Counters{}
		l.LastFailure, l.Escalation = nil, nil
		l.Agents = nil
		l.Loops++
		l.log(Result{At: now, Kind: KindStarted, Domain: domain, File: file})
	}
	l.UpdatedAt = now
	changed := l.addFile(domain, file)
	if !slices.Contains(l.ModifiedDomains, domain) {
		l.ModifiedDomains = append(l.ModifiedDomains, domain)
		l.DomainPhases[domain] = freshPhases()
		l.Failures[domain] = &Counters{}
		if len(l.ModifiedDomains) > 1 {
			l.log(Result{At: now, Kind: KindDomain, Domain: domain, File: file})
		}
		return true
	}
	if l.Escalation != nil {
		return changed
	}
	d := l.DomainPhases[domain]
	for _, p := range Phases {
		if d.Get(p).Status != NotRun {
			l.DomainPhases[domain] = freshPhases()
			l.log(Result{At: now, Kind: KindStale, Domain: domain, File: file,
				Note: "changed after results: review, test planning and testing run again"})
			return true
		}
	}
	return changed
}

func (l *Loop) addFile(domain, file string) bool {
	if file == "" {
		return false
	}
	if l.ModifiedFiles == nil {
		l.ModifiedFiles = map[string][]string{}
	}
	fs := l.ModifiedFiles[domain]
	if slices.Contains(fs, file) || len(fs) >= maxFilesPerDom {
		return false
	}
	l.ModifiedFiles[domain] = append(fs, file)
	return true
}

// AgentResult is what an agent returned.
type AgentResult struct {
	// Agent is the agent's type (subagent_type / agent_type).
	Agent   string
	AgentID string
	// Text is the agent's final output.
	Text string
	// Error is set when the agent call itself failed.
	Error string
}

// Outcome is what Apply did.
type Outcome struct {
	// Applied lists the phase results set.
	Applied []Result
	// Reset is true when TESTS_FAILED reset every phase.
	Reset bool
	// Escalated is set when this result reached a limit.
	Escalated *Escalation
	// Ignored is true when the agent printed a marker but has no role in
	// this loop's domains.
	Ignored bool
}

// Apply takes an agent's result into the loop: it finds the domains in
// this loop where the agent holds the phase's role (a test lead counts for
// every domain whose test lead it is), sets the phase to PASS or FAIL (no
// marker is a FAIL that says so), keeps the per-domain consecutive failure
// counters, and on TESTS_FAILED resets every phase of every domain and
// counts an iteration. Then it checks the limits.
func (l *Loop) Apply(c *Config, lim Limits, r AgentResult, now time.Time) Outcome {
	var out Outcome
	l.normalize()
	if !l.Active || l.Escalation != nil || r.Agent == "" {
		return out
	}
	if r.AgentID != "" {
		if slices.Contains(l.Agents, r.AgentID) {
			return out
		}
	}
	// Which phases of which domains this agent serves.
	roles := map[string][]string{} // phase → domains
	for _, d := range l.ModifiedDomains {
		for _, p := range Phases {
			if c.Role(d, p).Has(r.Agent) {
				roles[p] = append(roles[p], d)
			}
		}
	}
	marker, found := ParseMarker(r.Text)
	if len(roles) == 0 {
		if found {
			out.Ignored = true
			l.log(Result{At: now, Kind: KindIgnored, Agent: r.Agent, AgentID: r.AgentID, Marker: marker.Name,
				Note: "agent is not a configured reviewer, test lead or tester of " + strings.Join(l.ModifiedDomains, ", ")})
			l.UpdatedAt = now
		}
		return out
	}
	if r.AgentID != "" {
		l.Agents = append(l.Agents, r.AgentID)
	}
	l.UpdatedAt = now
	type target struct {
		phase   string
		pass    bool
		marker  string
		issues  []string
		domains []string
	}
	var targets []target
	switch {
	case r.Error != "":
		for _, p := range Phases {
			if ds := roles[p]; len(ds) > 0 {
				targets = append(targets, target{phase: p, domains: ds,
					issues: []string{"the agent call failed: " + clip(r.Error)}})
			}
		}
	case found && len(roles[marker.Phase]) > 0:
		targets = append(targets, target{phase: marker.Phase, pass: marker.Pass, marker: marker.Name,
			domains: roles[marker.Phase], issues: Issues(r.Text)})
	default:
		for _, p := range Phases {
			if ds := roles[p]; len(ds) > 0 {
				msg := fmt.Sprintf("no result marker in the agent's output (expected %s); a missing marker counts as FAIL", expected(p))
				if found {
					msg = fmt.Sprintf("wrong result marker %s for %s (expected %s); counted as FAIL", marker.Name, phaseLabel(p), expected(p))
				}
				targets = append(targets, target{phase: p, domains: ds, issues: []string{msg}})
			}
		}
	}
	testsFailed := false
	for _, t := range targets {
		status := Fail
		if t.pass {
			status = Pass
		}
		counted := false
		for _, d := range t.domains {
			if t.pass && l.outOfOrder(d, t.phase, Result{At: now, Agent: r.Agent, AgentID: r.AgentID, Marker: t.marker, Status: status}) {
				continue
			}
			counted = true
			ph := l.DomainPhases[d].Get(t.phase)
			at := now
			*ph = Phase{Status: status, Agent: r.Agent, AgentID: r.AgentID, Marker: t.marker, RanAt: &at, Issues: t.issues}
			cnt := l.Failures[d].get(t.phase)
			if t.pass {
				*cnt = 0
			} else {
				*cnt++
			}
			res := Result{At: now, Kind: KindResult, Domain: d, Phase: t.phase, Agent: r.Agent, AgentID: r.AgentID,
				Marker: t.marker, Status: status, Issues: t.issues}
			if r.Error != "" {
				res.Kind = KindAgentFail
			}
			l.log(res)
			out.Applied = append(out.Applied, res)
			if !t.pass {
				last := res
				l.LastFailure = &last
			}
		}
		if t.marker == MarkerTestsFailed && counted {
			testsFailed = true
		}
	}
	if testsFailed {
		out.Reset = true
		l.Iteration++
		for _, d := range l.ModifiedDomains {
			l.DomainPhases[d] = freshPhases()
		}
		l.log(Result{At: now, Kind: KindReset, Agent: r.Agent,
			Note: "TESTS_FAILED: every phase of every domain runs again"})
	}
	out.Escalated = l.checkLimits(lim, now)
	return out
}

// checkLimits escalates when a limit is reached and returns the new
// escalation, or nil.
func (l *Loop) checkLimits(lim Limits, now time.Time) *Escalation {
	if l.Escalation != nil {
		return nil
	}
	var e *Escalation
	if lim.MaxFeedbackIterations > 0 && l.Iteration > lim.MaxFeedbackIterations {
		e = &Escalation{Reason: "max_feedback_iterations",
			Message: fmt.Sprintf("tests failed in %d review → test cycles (inter_phase.max_feedback_iterations: %d)",
				l.Iteration-1, lim.MaxFeedbackIterations)}
	}
	for _, d := range l.ModifiedDomains {
		if e != nil {
			break
		}
		for _, p := range Phases {
			n := *l.Failures[d].get(p)
			if max := lim.MaxFailures(d, p); max > 0 && n >= max {
				e = &Escalation{Reason: failureReason(p) + ":" + d,
					Message: fmt.Sprintf("%s of %s failed %d times in a row (inter_phase.%s: %d)",
						phaseLabel(p), d, n, limitKey(p), max)}
				break
			}
		}
	}
	if e == nil {
		return nil
	}
	if l.LastFailure != nil && len(l.LastFailure.Issues) > 0 {
		e.Message += "; last issues: " + strings.Join(l.LastFailure.Issues, "; ")
	}
	e.At = now
	l.Escalation = e
	l.log(Result{At: now, Kind: KindEscalated, Note: e.Reason + ": " + e.Message})
	return e
}

// Pending returns the domains whose phases have not all passed, in the
// order they were changed.
func (l *Loop) Pending() []string {
	var out []string
	for _, d := range l.ModifiedDomains {
		if ph := l.DomainPhases[d]; ph != nil && ph.Next() != "" {
			out = append(out, d)
		}
	}
	return out
}

// Complete marks the loop finished.
func (l *Loop) Complete(now time.Time) {
	l.Active = false
	t := now
	l.CompletedAt = &t
	l.UpdatedAt = now
	l.log(Result{At: now, Kind: KindComplete, Note: "every domain passed review, test planning and testing"})
}

// Close ends an escalated loop (the user's next prompt takes over).
func (l *Loop) Close(now time.Time) {
	l.Active = false
	l.UpdatedAt = now
	l.log(Result{At: now, Kind: KindClosed, Note: "closed by the user's prompt after escalation"})
}

func failureReason(phase string) string {
	switch phase {
	case PhaseReview:
		return "review_failures"
	case PhaseTestPlanning:
		return "planning_failures"
	}
	return "test_failures"
}

func phaseLabel(phase string) string {
	switch phase {
	case PhaseReview:
		return "review"
	case PhaseTestPlanning:
		return "test planning"
	}
	return "testing"
}

func expected(phase string) string {
	switch phase {
	case PhaseReview:
		return MarkerReviewApproved + " or " + MarkerReviewRejected
	case PhaseTestPlanning:
		return MarkerTestPlanReady + " or " + MarkerTestPlanBlocked
	}
	return MarkerTestsPassed + " or " + MarkerTestsFailed
}
