package store

import (
	"bytes"
	"cmp"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/logs"
)

// Decision is what the dashboard keeps of one gate decision record
// (decisions.json): the gate's own words rather than its reason code, and
// what became of it.
type Decision struct {
	Hook     string // the CamelCase event the gate answered
	Decision string // allow, deny, block, ask, escalated, or "warn" (an allow that showed the user a message)
	// Enforcement is the record's (gate.Enforced, gate.DryRunned,
	// gate.FailedOpen, gate.FailedClosed, gate.GaveWay), inferred for a
	// record written before the field existed.
	Enforcement string
	// Message is the gate's own message (its reason code when it gave
	// none), one line.
	Message string
	// Judged is the tool call or event the gate answered ("Write
	// health.go"), found in the event logs by its hook and time ("" when
	// it is not in the tail read).
	Judged string
}

// Stopped reports whether the decision denied or blocked the action and
// was enforced (the row's ⊘ count).
func (d *Decision) Stopped() bool {
	return (d.Decision == gate.Deny || d.Decision == gate.Block) &&
		(d.Enforcement == gate.Enforced || d.Enforcement == gate.FailedClosed)
}

// Asked reports whether the decision asked the user to confirm.
func (d *Decision) Asked() bool {
	return d.Decision == gate.Ask && d.Enforcement != gate.DryRunned
}

// Outcome is what became of the decision, in words true for its hook
// (gate.Outcome).
func (d *Decision) Outcome() string {
	dec := d.Decision
	if dec == "warn" {
		dec = gate.Allow
	}
	return gate.Outcome(d.Hook, dec, d.Enforcement)
}

// decisionEvent reduces a decision record to an Event.
func decisionEvent(ev Event, e *rawDecision) Event {
	ev.Event, ev.Tool = "Decision", e.Source
	d := &Decision{Hook: e.Hook, Decision: e.Decision, Enforcement: e.Enforcement}
	if d.Decision == gate.Allow && (e.SystemMessage != "" || e.Reason == gate.ReasonWarning) {
		d.Decision = "warn" // an allow that showed the user a message
	}
	if d.Enforcement == "" { // a record from before the field
		switch {
		case e.Decision == gate.Escalated:
			d.Enforcement = gate.GaveWay
		case e.DryRun:
			d.Enforcement = gate.DryRunned
		case e.Reason == gate.ReasonGateError && e.Decision == gate.Allow:
			d.Enforcement = gate.FailedOpen
		case e.Reason == gate.ReasonGateError:
			d.Enforcement = gate.FailedClosed
		default:
			d.Enforcement = gate.Enforced
		}
	}
	// The gate's own words first: its reason is a code ("exit-2",
	// "iteration:2/5") that says less.
	msg := cmp.Or(e.Message, e.SystemMessage)
	switch {
	case msg != "":
	case e.Reason == gate.ReasonContext && e.Context != "":
		msg = "context: " + e.Context
	case e.Error != "":
		msg = e.Error
	default:
		msg = e.Reason
	}
	d.Message = OneLine(msg, 300)
	ev.Gate = d
	ev.FailedOpen = d.Enforcement == gate.FailedOpen
	ev.Failed = e.Decision == gate.Deny || e.Decision == gate.Block
	ev.Detail = d.line()
	return ev
}

// line is a decision's one-line summary: decision, hook, a note when it
// was not enforced, the gate's message (first, so that a narrow pane
// keeps it), and the call it judged.
func (d *Decision) line() string {
	s := d.Decision + " " + d.Hook
	switch {
	case d.Enforcement == gate.DryRunned:
		s += " (dry run)"
	case d.Enforcement == gate.FailedOpen, d.Enforcement == gate.FailedClosed, d.Enforcement == gate.GaveWay:
		s += " (" + strings.ReplaceAll(d.Enforcement, "-", " ") + ")"
	case d.Stopped() && (d.Hook == "Stop" || d.Hook == "SubagentStop"):
		// A Stop block does not stop Claude: it keeps it (or the
		// subagent) working; the full view says so in a sentence.
		s += " (kept working)"
	}
	if d.Message != "" {
		s += ": " + d.Message
	}
	if d.Judged != "" {
		s += " · " + d.Judged
	}
	return OneLine(s, 300)
}

// judged is how an event reads as the call a decision answered: its tool
// and what it acted on ("Bash go test ./...").
func judged(e Event) string {
	switch {
	case e.Tool != "":
		return strings.TrimSpace(e.Tool + " " + OneLine(e.Detail, 80))
	case e.Event == "SubagentStop" || e.Event == "SubagentStart":
		agent, _, _ := strings.Cut(e.Detail, " ")
		return agent
	case e.Event == "UserPromptSubmit" && e.Detail != "":
		return "“" + OneLine(e.Detail, 40) + "”"
	}
	return ""
}

// LinkDecisions fills in, for each decision among evs (oldest first) that lacks it, the call it judged: the event of its hook the same
// hook call logged, at the same time. Its one-line summary is written
// again.
func LinkDecisions(evs []Event) {
	for i := range evs {
		d := evs[i].Gate
		if d == nil || d.Judged != "" {
			continue
		}
		for j := i; j >= 0 && j >= i-64; j-- { // the event is logged first, within a few entries
			e := evs[j]
			if e.Gate == nil && e.Session == evs[i].Session && e.Event == d.Hook && e.At.Equal(evs[i].At) {
				if call := judged(e); call != "" {
					c := *d
					c.Judged = call
					evs[i].Gate = &c
					evs[i].Detail = c.line()
				}
				break
			}
		}
		if evs[i].Gate.Judged == "" { // the event may sort just after its decision
			for j := i + 1; j < len(evs) && j <= i+64 && evs[j].At.Equal(evs[i].At); j++ {
				e := evs[j]
				if e.Gate == nil && e.Session == evs[i].Session && e.Event == d.Hook {
					if call := judged(e); call != "" {
						c := *d
						c.Judged = call
						evs[i].Gate = &c
						evs[i].Detail = c.line()
					}
					break
				}
			}
		}
	}
}

// GateTally counts a session's gate decisions read from the decisions
// log, for its row.
type GateTally struct {
	Stopped    int // denies and blocks enforced
	Asked      int // asks put to the user
	FailedOpen int // gates that could not decide and let the action through
	DryRun     int // denies and blocks logged only (dry run)
}

// Any reports whether there is something to show.
func (t GateTally) Any() bool { return t != GateTally{} }

func (t *GateTally) add(d *Decision) {
	switch {
	case d.Stopped():
		t.Stopped++
	case d.Asked():
		t.Asked++
	case d.Enforcement == gate.FailedOpen:
		t.FailedOpen++
	case d.Enforcement == gate.DryRunned && (d.Decision == gate.Deny || d.Decision == gate.Block || d.Decision == gate.Ask):
		t.DryRun++
	}
}

// gateCountBytes bounds how far back the decisions log is read for the
// rows' gate counts at startup.
const gateCountBytes = 16 << 20

// CountGates counts, per session, the decisions of the log at path (newest
// first, at most about maxBytes back) that a row shows: only lines that
// can be a deny, block, ask or failed-open gate are decoded.
func CountGates(path string, maxBytes int64) map[string]GateTally {
	out := map[string]GateTally{}
	marks := [][]byte{[]byte(`"deny"`), []byte(`"block"`), []byte(`"ask"`), []byte(gate.FailedOpen), []byte(gate.ReasonGateError)}
	_ = logs.Backward(path, maxBytes, func(raw []byte) error {
		hit := false
		for _, m := range marks {
			if bytes.Contains(raw, m) {
				hit = true
				break
			}
		}
		if !hit {
			return nil
		}
		if ev, ok := ParseEvent(raw); ok && ev.Gate != nil {
			g := out[ev.Session]
			g.add(ev.Gate)
			out[ev.Session] = g
		}
		return nil
	})
	return out
}
