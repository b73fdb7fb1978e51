package feedback

import "strings"

// Explanation says why a loop is waiting, in the words the dashboard's Loop
// pane shows (and the export can): for each domain and phase the agents it
// expects, which phase each domain waits on, and the last result the loop
// did not count, with why.
type Explanation struct {
	Domains []DomainExplanation
	// Ignored is the last result the loop did not count ("" Agent: none).
	Ignored Ignored
}

// DomainExplanation is one domain's row of an Explanation.
type DomainExplanation struct {
	Name string
	// Expect maps each phase (PhaseReview, PhaseTestPlanning,
	// PhaseTesting) to the agents configured to run it (none: no agent
	// can pass it, which the pane says).
	Expect map[string][]string
	// Next is the first phase not passed ("" when all passed); Waits
	// says what it waits for, in a sentence ("waits for review by
	// backend-reviewer").
	Next, Waits string
}

// Ignored is a result the loop did not count.
type Ignored struct {
	Agent, Marker, Why string
}

// Explain builds the Explanation of a loop's status under the feedback
// configuration c (nil: the roles are unknown, only the ignored result is
// explained).
func Explain(st *Status, c *Config) Explanation {
	var ex Explanation
	if st == nil {
		return ex
	}
	for _, d := range st.Domains {
		de := DomainExplanation{Name: d.Name, Next: d.Next, Expect: map[string][]string{}}
		if c != nil {
			for _, p := range Phases {
				de.Expect[p] = []string(c.Role(d.Name, p))
			}
		}
		de.Waits = waits(st, d, de.Expect, c != nil)
		ex.Domains = append(ex.Domains, de)
	}
	if st.Loop != nil {
		for i := len(st.Loop.History) - 1; i >= 0; i-- {
			r := st.Loop.History[i]
			if r.Kind == KindIgnored {
				ex.Ignored = Ignored{Agent: r.Agent, Marker: r.Marker, Why: ignoredWhy(r)}
				break
			}
		}
	}
	return ex
}

// PhaseLabel names a phase in a sentence.
func PhaseLabel(phase string) string {
	switch phase {
	case PhaseTestPlanning:
		return "test planning"
	}
	return phase
}

func waits(st *Status, d DomainStatus, expect map[string][]string, known bool) string {
	if d.Next == "" {
		return "every phase passed"
	}
	var ph PhaseStatus
	for _, p := range d.Phases {
		if p.Name == d.Next {
			ph = p
		}
	}
	label := PhaseLabel(d.Next)
	switch {
	case ph.Running():
		return label + " is running (" + ph.Agent + ")"
	case ph.Status == Fail:
		return label + " failed; waits for " + who(expect[d.Next], known) + " to run it again"
	case st.State == StateEscalated:
		return label + " not run; the loop escalated and no longer blocks"
	case st.State == StateBypassed:
		return label + " not run; an orchestration skill owns the loop"
	}
	return "waits for " + label + " by " + who(expect[d.Next], known)
}

func who(agents []string, known bool) string {
	switch {
	case !known:
		return "its configured agent"
	case len(agents) == 0:
		return "an agent, but none is configured for it"
	}
	return strings.Join(agents, " or ")
}

func ignoredWhy(r Result) string {
	why := r.Note
	if why == "" {
		why = "it has no role in this loop"
	}
	return why
}
