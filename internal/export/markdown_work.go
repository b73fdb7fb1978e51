package export

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// The Markdown sections about the work and its checks: todos and tasks,
// requirements, the feedback loop, gate decisions and event counts.

// work shows the todo list and tasks, when the session has any.
func (m *md) work() {
	if len(m.s.Todos) > 0 {
		m.heading("Todos", len(m.s.Todos))
		for _, t := range m.s.Todos {
			m.p("- %s %s%s\n", checkbox(t.Status), inline(t.Content, mdMaxInline), statusSuffix(t.Status))
		}
	}
	if len(m.s.Tasks) > 0 {
		m.heading("Tasks", len(m.s.Tasks))
		for _, t := range m.s.Tasks {
			subject := t.Subject
			if subject == "" {
				subject = "task " + t.ID
			}
			m.p("- %s #%s %s%s\n", checkbox(t.Status), inline(t.ID, 20), inline(subject, mdMaxInline), statusSuffix(t.Status))
		}
	}
}

func checkbox(status string) string {
	if status == "completed" {
		return "[x]"
	}
	return "[ ]"
}

func statusSuffix(status string) string {
	switch status {
	case "", "completed", "pending":
		return ""
	}
	return " _(" + strings.ReplaceAll(status, "_", " ") + ")_"
}

func (m *md) requirements() {
	r := m.s.Requirements
	m.heading("Requirements", -1)
	switch r.Status {
	case StatusNotConfigured:
		m.p("No requirements configured.\n")
		return
	case StatusUnavailable:
		m.p("Requirements are configured, but this build of spcstr cannot report their status.\n")
		return
	case StatusError:
		m.p("Could not read the requirement status: %s\n", inline(r.Error, 300))
		return
	}
	if len(r.Items) == 0 {
		m.p("No requirements apply to this session.\n")
		return
	}
	sat, on := 0, 0
	for _, it := range r.Items {
		if it.Enabled {
			on++
			if it.Satisfied {
				sat++
			}
		}
	}
	m.p("%d of %d satisfied", sat, on)
	if r.Branch != "" {
		m.p(" on branch `%s`", r.Branch)
	}
	if off := len(r.Items) - on; off > 0 {
		m.p(" (and %d configured but disabled)", off)
	}
	m.p(".\n\n| Requirement | Scope | Triggered | Status | Satisfied by |\n| --- | --- | --- | --- | --- |\n")
	for _, it := range r.Items {
		status := "**unsatisfied**"
		switch {
		case !it.Enabled:
			status = "disabled"
		case it.Satisfied:
			status = "satisfied"
			if it.SatisfiedAt != nil {
				status += " " + m.time(*it.SatisfiedAt)
			}
		}
		m.p("| %s | %s | %s | %s | %s |\n", cell(it.Name), cell(it.Scope), yesNo(it.Triggered), status, cell(it.SatisfiedBy))
	}
	for _, it := range r.Items {
		if it.Enabled && !it.Satisfied && it.Message != "" {
			m.p("\n- **%s**: %s", inline(it.Name, 60), inline(it.Message, 300))
		}
	}
	if bytes.HasSuffix(m.b.Bytes(), []byte("|\n")) {
		return
	}
	m.p("\n")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func (m *md) feedback() {
	f := m.s.FeedbackLoop
	m.heading("Feedback loop", -1)
	switch f.Status {
	case StatusNotEnabled:
		m.p("Feedback loop not enabled for this session.\n")
		return
	case StatusUnavailable:
		m.p("This session has a feedback loop, but this build of spcstr cannot report it.\n")
		return
	case StatusError:
		m.p("Could not read the feedback loop: %s\n", inline(f.Error, 300))
		return
	}
	var state string
	switch {
	case f.Escalation != nil:
		state = "escalated at " + m.time(f.Escalation.At) + ": " + inline(f.Escalation.Message, 300)
	case f.State == "bypassed":
		state = "bypassed: an orchestration skill owns the loop"
	case f.State == "complete" || (f.State == "" && !f.Active && f.CompletedAt != nil):
		state = "complete"
		if f.CompletedAt != nil {
			state += " at " + m.time(*f.CompletedAt)
		}
	case f.State == "active" || (f.State == "" && f.Active):
		state = "active: Stop is blocked until every domain passes"
	default:
		state = "idle"
	}
	iter := fmt.Sprintf("iteration %d", f.Iteration)
	if f.MaxIterations > 0 {
		iter += fmt.Sprintf(" of at most %d", f.MaxIterations)
	}
	m.p("%s, %s; %s.\n", capitalize(plural(f.Loops, "loop")), iter, state)
	if len(f.Domains) > 0 {
		m.p("\n| Domain | Review | Test planning | Testing | Files |\n| --- | --- | --- | --- | ---: |\n")
		for _, d := range f.Domains {
			m.p("| %s | %s | %s | %s | %d |\n", cell(d.Name), phase(d.Review), phase(d.TestPlanning), phase(d.Testing), len(d.Files))
		}
	}
	if len(f.History) > 0 {
		m.p("\n**History**\n\n| Time | Event | Iteration | Domain | Phase | Agent | Result | Note |\n| --- | --- | ---: | --- | --- | --- | --- | --- |\n")
		shown := f.History[max(0, len(f.History)-mdMaxRows):]
		for _, h := range shown {
			result := h.Status
			if h.Marker != "" {
				result = strings.TrimSpace(h.Status + " " + h.Marker)
			}
			m.p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", m.time(h.At), cell(h.Kind), iterCell(h.Iteration),
				cell(h.Domain), cell(h.Phase), cell(h.Agent), cell(result), cell(h.Note))
		}
		m.omitted(len(f.History)-len(shown), "earlier history entries")
	}
}

func iterCell(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func phase(s string) string {
	switch s {
	case PhasePass:
		return "PASS"
	case PhaseFail:
		return "**FAIL**"
	case "", PhaseNotRun:
		return "not run"
	}
	return cell(s)
}

func (m *md) events() {
	e := m.s.Events
	m.heading("Events", -1)
	if e.Logged == 0 {
		m.p("None of this session's events are in .spcstr/logs")
		if e.Counted > 0 {
			m.p(" (state.json counted %s; the logs were removed)", num(int64(e.Counted)))
		}
		m.p(".\n")
		return
	}
	m.p("%s logged", plural(e.Logged, "event"))
	if e.FirstAt != nil {
		m.p(" from %s to %s", m.time(*e.FirstAt), m.time(*e.LastAt))
	}
	m.p(".")
	if e.HookMS.Max > 0 { // zero only when replayed under a fixed clock
		m.p(" spcstr's hook took %s ms median", ms(e.HookMS.Median))
		if e.HookMS.P95 != nil {
			m.p(", %s ms p95", ms(*e.HookMS.P95))
		}
		m.p(", %s ms at most (%s ms in all).", ms(e.HookMS.Max), ms(e.HookMS.Total))
	}
	m.p("\n")
	if e.Counted > e.Logged {
		gone := e.Counted - e.Logged
		verb := "are"
		if gone == 1 {
			verb = "is"
		}
		m.p("state.json counted %s; %s %s no longer in the logs.\n", plural(e.Counted, "event"), num(int64(gone)), verb)
	}
	var notes []string
	if e.Answers > 0 {
		notes = append(notes, plural(e.Answers, "answer")+" given to Claude Code")
	}
	if e.TruncatedPayloads > 0 {
		notes = append(notes, plural(e.TruncatedPayloads, "payload")+" cut at the size cap")
	}
	if e.HookErrors > 0 {
		notes = append(notes, plural(e.HookErrors, "hook call")+" with a spcstr error")
	}
	if len(notes) > 0 {
		m.p("%s.\n", capitalize(strings.Join(notes, ", ")))
	}
	m.p("\n| Event | Count |\n| --- | ---: |\n")
	for _, n := range e.ByType {
		m.p("| %s | %s |\n", cell(n.Event), num(int64(n.Count)))
	}
}

func ms(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
