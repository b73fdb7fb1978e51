package feedback

import (
	"fmt"
	"strings"
)

// Texts the loop gives Claude and the user. Claude reads the Stop block's
// reason as a system message, so each says exactly what to do next.

func iterationLabel(l *Loop, lim Limits) string {
	return fmt.Sprintf("iteration %d/%d", l.Iteration, lim.MaxFeedbackIterations)
}

func spawnHint(agent, phase string) string {
	return fmt.Sprintf("spawn the `%s` agent (Agent tool, subagent_type %q); its final answer must contain %s", agent, agent, expected(phase))
}

// startContext tells Claude, at the change that started the loop or added
// a domain, what the loop will require.
func startContext(c *Config, l *Loop, lim Limits, domain, file string) string {
	d := c.Domains[domain]
	return fmt.Sprintf("spcstr feedback loop (%s): %s is %s code. Before you stop, %s needs review (%s), test planning (%s) and testing (%s), in that order; each agent must end its answer with its result marker.",
		iterationLabel(l, lim), file, domain, domain, d.Reviewer.First(), d.TestLead.First(), d.Tester.First())
}

// resultContext tells Claude what an agent's result did to the loop.
func resultContext(c *Config, l *Loop, lim Limits, r AgentResult, out Outcome) string {
	var b strings.Builder
	switch {
	case out.Escalated != nil:
		fmt.Fprintf(&b, "spcstr feedback loop escalated to the user: %s. Stop retrying: report the state of the work and the open issues to the user.", out.Escalated.Message)
		return b.String()
	case out.Ignored:
		want := []string{}
		for _, d := range l.ModifiedDomains {
			for _, p := range Phases {
				want = append(want, c.Role(d, p).First())
			}
		}
		return fmt.Sprintf("spcstr feedback loop: the result of agent %q does not count: it is not a configured reviewer, test lead or tester of %s (configured: %s).",
			r.Agent, strings.Join(l.ModifiedDomains, ", "), strings.Join(uniq(want), ", "))
	case out.Reset:
		fmt.Fprintf(&b, "spcstr feedback loop: %s reported TESTS_FAILED", r.Agent)
		if l.LastFailure != nil && len(l.LastFailure.Issues) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(l.LastFailure.Issues, "; "))
		}
		fmt.Fprintf(&b, ". Every phase of every domain is reset; now %s. Fix the failures, then run review, test planning and testing again.", iterationLabel(l, lim))
		return b.String()
	}
	for _, a := range out.Applied {
		if a.Status == Fail && a.Marker == "" {
			return fmt.Sprintf("spcstr feedback loop: %s of %s counts as FAIL: %s. Run %s again and make it end with %s.",
				phaseLabel(a.Phase), a.Domain, strings.Join(a.Issues, "; "), r.Agent, expected(a.Phase))
		}
	}
	return ""
}

// escalationMessage is the systemMessage that tells the user why the loop
// stopped blocking.
func escalationMessage(e *Escalation) string {
	return fmt.Sprintf("spcstr feedback loop stopped enforcing and hands over to you: %s. Stops are no longer blocked; your next prompt starts a fresh loop with the next change.", e.Message)
}

// statusLine is the short reminder injected on prompts and after
// compaction while a loop is active.
func statusLine(c *Config, l *Loop, lim Limits) string {
	parts := make([]string, 0, len(l.ModifiedDomains))
	for _, d := range l.ModifiedDomains {
		next := l.DomainPhases[d].Next()
		if next == "" {
			parts = append(parts, d+": all phases passed")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s: %s next (%s)", d, phaseLabel(next), c.Role(d, next).First()))
	}
	return fmt.Sprintf("<active-feedback-loop>%s; %s</active-feedback-loop>", iterationLabel(l, lim), strings.Join(parts, "; "))
}

// pendingReason is the decision's machine-friendly reason:
// "pending:backend=review,frontend=testing".
func pendingReason(l *Loop, pending []string) string {
	parts := make([]string, 0, len(pending))
	for _, d := range pending {
		parts = append(parts, d+"="+l.DomainPhases[d].Next())
	}
	return "pending:" + strings.Join(parts, ",")
}

// blockMessage is the Stop block's reason: the next step per domain.
func blockMessage(c *Config, l *Loop, lim Limits, pending []string, waiting map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "spcstr feedback loop (%s): code changed in %s. Before you stop, every changed domain must pass review, then test planning, then testing.",
		iterationLabel(l, lim), strings.Join(l.ModifiedDomains, ", "))
	if l.Iteration > 1 && l.LastFailure != nil && l.LastFailure.Marker == MarkerTestsFailed {
		fmt.Fprintf(&b, " Tests failed in the previous iteration (%s", l.LastFailure.Agent)
		if len(l.LastFailure.Issues) > 0 {
			fmt.Fprintf(&b, ": %s", strings.Join(l.LastFailure.Issues, "; "))
		}
		b.WriteString("): fix them, then run the whole cycle again.")
	}
	leadDone := map[string]bool{}
	for _, d := range pending {
		ph := l.DomainPhases[d]
		next := ph.Next()
		p := ph.Get(next)
		agent := c.Role(d, next).First()
		b.WriteString("\n- " + d + ": ")
		switch {
		case waiting[d] != "":
			fmt.Fprintf(&b, "%s is running in the background; wait for its result.", waiting[d])
		case p.Status == Fail:
			fmt.Fprintf(&b, "%s FAILED", phaseLabel(next))
			if p.Agent != "" {
				fmt.Fprintf(&b, " (%s)", p.Agent)
			}
			if len(p.Issues) > 0 {
				fmt.Fprintf(&b, ": %s", strings.Join(p.Issues, "; "))
			}
			fmt.Fprintf(&b, ". Address it, then %s.", spawnHint(agent, next))
		case next == PhaseTestPlanning:
			shared := []string{}
			for _, o := range pending {
				if l.DomainPhases[o].Next() == PhaseTestPlanning && c.Role(o, PhaseTestPlanning).Has(agent) {
					shared = append(shared, o)
				}
			}
			if leadDone[agent] {
				fmt.Fprintf(&b, "test planning next; the same %s run covers it.", agent)
				continue
			}
			leadDone[agent] = true
			fmt.Fprintf(&b, "test planning next: %s", spawnHint(agent, next))
			if len(shared) > 1 {
				fmt.Fprintf(&b, " (one run counts for %s)", strings.Join(shared, ", "))
			}
			b.WriteString(".")
		default:
			fmt.Fprintf(&b, "%s next: %s.", phaseLabel(next), spawnHint(agent, next))
		}
	}
	return b.String()
}

func uniq(in []string) []string {
	seen := map[string]bool{}
	out := in[:0]
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
