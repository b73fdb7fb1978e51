package export

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Bounds on what the Markdown shows; the JSON export always has everything.
const (
	mdMaxRows        = 200  // timeline and history rows, prompts, errors, notifications
	mdMaxInline      = 160  // a prompt shown on its list line
	mdMaxBlock       = 2000 // a prompt or error shown as a block
	mdMaxBlockLines  = 30
	mdMaxCell        = 100 // a table cell
	mdMaxFilesListed = 500
)

// WriteMarkdown writes the summaries as Markdown, separated by rules.
func WriteMarkdown(w io.Writer, sums []*Summary) error {
	var buf bytes.Buffer
	for i, s := range sums {
		if i > 0 {
			buf.WriteString("\n---\n\n")
		}
		m := &md{b: &buf, s: s}
		m.session()
	}
	_, err := w.Write(buf.Bytes())
	return err
}

type md struct {
	b *bytes.Buffer
	s *Summary
}

func (m *md) p(format string, args ...any) { fmt.Fprintf(m.b, format, args...) }

func (m *md) session() {
	s := m.s
	m.p("# Session %s · %s\n\n", shortID(s.SessionID), statusLabel(s.Status))
	m.p("- **Session**: `%s`\n", s.SessionID)
	m.p("- **Project**: `%s`\n", s.ProjectDir)
	if s.Branch != "" {
		m.p("- **Branch**: `%s`\n", s.Branch)
	}
	m.p("- **Started**: %s\n", fullTime(s.StartedAt))
	switch {
	case s.EndedAt != nil:
		reason := ""
		if s.EndReason != "" {
			reason = " (" + s.EndReason + ")"
		}
		m.p("- **Ended**: %s%s\n", fullTime(*s.EndedAt), reason)
	case s.LastEventAt != nil:
		m.p("- **Last event**: %s (not ended)\n", fullTime(*s.LastEventAt))
	}
	m.p("- **Duration**: %s\n", duration(float64(s.DurationMS)))
	m.p("- **Status**: %s\n", statusLabel(s.Status))
	if s.Model != "" {
		m.p("- **Model**: %s\n", s.Model)
	}
	t := s.Tokens
	if t.Input+t.Output+t.CacheRead+t.CacheCreation > 0 {
		m.p("- **Tokens**: %s in · %s out · %s cache read · %s cache write\n",
			num(t.Input), num(t.Output), num(t.CacheRead), num(t.CacheCreation))
	} else {
		m.p("- **Tokens**: none counted (no transcript read)\n")
	}
	if t.ContextUsed > 0 && t.ContextWindow > 0 {
		m.p("- **Context**: %s of %s (%.1f%%)\n", num(t.ContextUsed), num(t.ContextWindow), t.ContextPercent)
	}
	if len(s.Starts) > 1 || s.Compactions > 0 {
		var parts []string
		for _, st := range s.Starts {
			parts = append(parts, st.Source+" "+m.time(st.At))
		}
		m.p("- **Starts**: %s", strings.Join(parts, ", "))
		if s.Compactions > 0 {
			m.p(" (%s)", plural(s.Compactions, "compaction"))
		}
		m.p("\n")
	}
	tt := s.Totals
	m.p("\n%s · %s · %s · files: %s new, %s edited, %s read · %s · %s · %s\n",
		plural(tt.Prompts, "prompt"), plural(tt.ToolCalls, "tool call"), plural(tt.Agents, "agent"),
		num(int64(tt.FilesNew)), num(int64(tt.FilesEdited)), num(int64(tt.FilesRead)),
		plural(tt.Errors, "error"), plural(tt.Decisions, "decision"), plural(tt.Events, "event"))

	m.prompts()
	m.agents()
	m.files()
	m.tools()
	m.errors()
	m.notifications()
	m.work()
	m.requirements()
	m.feedback()
	m.decisions()
	m.events()
}

// time formats a time of the session: the clock time when the session lies
// within one UTC day, else date and time.
func (m *md) time(t time.Time) string {
	t = t.UTC()
	end := m.s.StartedAt
	if m.s.LastEventAt != nil {
		end = *m.s.LastEventAt
	}
	if sameDay(m.s.StartedAt, end) && sameDay(t, m.s.StartedAt) {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04:05")
}

func sameDay(a, b time.Time) bool {
	ay, am, ad := a.UTC().Date()
	by, bm, bd := b.UTC().Date()
	return ay == by && am == bm && ad == bd
}

func fullTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

func (m *md) heading(title string, n int) {
	if n >= 0 {
		m.p("\n## %s (%s)\n\n", title, num(int64(n)))
		return
	}
	m.p("\n## %s\n\n", title)
}

// omitted says how many items a capped list left out.
func (m *md) omitted(n int, what string) {
	if n > 0 {
		m.p("\n_%s more %s not shown; the JSON export (`--format json`) has them all._\n", num(int64(n)), what)
	}
}

func (m *md) prompts() {
	ps := m.s.Prompts
	m.heading("Prompts", len(ps))
	if len(ps) == 0 {
		m.p("No prompts.\n")
		return
	}
	shown := ps[max(0, len(ps)-mdMaxRows):]
	if len(shown) < len(ps) {
		m.p("_The last %d:_\n\n", len(shown))
	}
	for i, p := range shown {
		n := len(ps) - len(shown) + i + 1
		if p.Kind == "task-notification" {
			what := p.Summary
			if what == "" {
				what = firstLine(p.Text)
			}
			m.p("%d. %s · _background task finished_: %s\n", n, m.time(p.Timestamp), inline(what, mdMaxInline))
			continue
		}
		text := strings.TrimSpace(p.Text)
		note := ""
		if p.Truncated {
			note = " _(cut by spcstr's payload cap)_"
		}
		if !strings.Contains(text, "\n") && utf8.RuneCountInString(text) <= mdMaxInline {
			m.p("%d. %s · %s%s\n", n, m.time(p.Timestamp), inline(text, mdMaxInline), note)
			continue
		}
		m.p("%d. %s%s\n\n", n, m.time(p.Timestamp), note)
		m.block(text, "   ")
	}
	m.omitted(len(ps)-len(shown), "earlier prompts")
}

// block writes text as a fenced block indented by indent, cut to
// mdMaxBlock characters and mdMaxBlockLines lines.
func (m *md) block(text, indent string) {
	text = strings.TrimRight(text, "\n")
	cut := ""
	if lines := strings.Split(text, "\n"); len(lines) > mdMaxBlockLines {
		text = strings.Join(lines[:mdMaxBlockLines], "\n")
		cut = fmt.Sprintf("… %d more lines", len(lines)-mdMaxBlockLines)
	}
	if utf8.RuneCountInString(text) > mdMaxBlock {
		text = truncRunes(text, mdMaxBlock)
		cut = "… cut here"
	}
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	m.p("%s%stext\n", indent, fence)
	for _, line := range strings.Split(text, "\n") {
		m.p("%s%s\n", indent, line)
	}
	if cut != "" {
		m.p("%s%s\n", indent, cut)
	}
	m.p("%s%s\n", indent, fence)
}

func (m *md) agents() {
	as := m.s.Agents
	m.heading("Agents", m.s.Totals.Agents)
	if len(as) == 0 {
		m.p("No subagents.\n")
		return
	}
	var bg, running, pass, fail int
	walk(as, func(a *Agent, _ int) {
		if a.Background {
			bg++
		}
		if a.Status == "running" {
			running++
		}
		switch a.Result {
		case "PASS":
			pass++
		case "FAIL":
			fail++
		}
	})
	var parts []string
	if bg > 0 {
		parts = append(parts, num(int64(bg))+" in the background")
	}
	if running > 0 {
		parts = append(parts, num(int64(running))+" still running")
	}
	if pass+fail > 0 {
		parts = append(parts, fmt.Sprintf("results: %d PASS, %d FAIL", pass, fail))
	}
	if len(parts) > 0 {
		m.p("%s.\n\n", capitalize(strings.Join(parts, "; ")))
	}
	walk(as, func(a *Agent, depth int) {
		m.p("%s- %s\n", strings.Repeat("  ", depth), m.agentLine(a))
	})
}

func walk(as []*Agent, fn func(a *Agent, depth int)) {
	var rec func([]*Agent, int)
	rec = func(list []*Agent, depth int) {
		for _, a := range list {
			fn(a, depth)
			rec(a.Children, depth+1)
		}
	}
	rec(as, 0)
}

func (m *md) agentLine(a *Agent) string {
	parts := []string{"**" + inline(a.Name, 60) + "**"}
	if a.Description != "" {
		parts[0] += ": " + inline(a.Description, 80)
	}
	if a.Background {
		parts = append(parts, "background")
	}
	switch {
	case a.Status == "running":
		parts = append(parts, "running since "+m.time(a.StartedAt))
	case a.DurationMS > 0:
		parts = append(parts, duration(a.DurationMS)+", "+a.Status)
	default:
		parts = append(parts, a.Status)
	}
	if a.Result != "" {
		r := "**" + a.Result + "**"
		if a.Marker != "" {
			r += " (" + a.Marker + ")"
		}
		parts = append(parts, r)
	}
	if a.TotalTokens > 0 {
		parts = append(parts, num(a.TotalTokens)+" tokens")
	}
	if len(a.Tools) > 0 {
		parts = append(parts, "tools: "+toolList(a.Tools, 6))
	}
	return strings.Join(parts, " · ")
}

func toolList(ts []ToolCount, limit int) string {
	var parts []string
	for i, t := range ts {
		if i == limit {
			parts = append(parts, fmt.Sprintf("+%d more", len(ts)-limit))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", inline(t.Name, 40), t.Calls))
	}
	return strings.Join(parts, ", ")
}

func (m *md) files() {
	f := m.s.Files
	m.heading("Files", -1)
	if len(f.New)+len(f.Edited)+len(f.Read) == 0 {
		m.p("No files written, edited or read.\n")
		return
	}
	for _, g := range []struct {
		title string
		list  []string
	}{{"New", f.New}, {"Edited", f.Edited}, {"Read", f.Read}} {
		if len(g.list) == 0 {
			continue
		}
		m.p("**%s (%s)**\n\n", g.title, num(int64(len(g.list))))
		shown := g.list[:min(len(g.list), mdMaxFilesListed)]
		for _, p := range shown {
			m.p("- %s\n", code(p))
		}
		m.omitted(len(g.list)-len(shown), "files")
		m.p("\n")
	}
	trimTrailingNewline(m.b)
}

func trimTrailingNewline(b *bytes.Buffer) {
	if bytes.HasSuffix(b.Bytes(), []byte("\n\n")) {
		b.Truncate(b.Len() - 1)
	}
}

func (m *md) tools() {
	ts := m.s.Tools
	m.heading("Tools", -1)
	if len(ts) == 0 {
		m.p("No tool calls.\n")
		return
	}
	m.p("%s in all.\n\n| Tool | Calls |\n| --- | ---: |\n", plural(m.s.Totals.ToolCalls, "call"))
	for _, t := range ts {
		m.p("| %s | %s |\n", cell(t.Name), num(int64(t.Calls)))
	}
}

func (m *md) errors() {
	es := m.s.Errors
	m.heading("Errors", len(es))
	if len(es) == 0 {
		m.p("None.\n")
		return
	}
	shown := es[max(0, len(es)-mdMaxRows):]
	for _, e := range shown {
		var where []string
		if e.Tool != "" {
			where = append(where, inline(e.Tool, 60))
		}
		if e.File != "" {
			where = append(where, code(e.File))
		}
		if e.AgentID != "" {
			where = append(where, "in agent "+code(e.AgentID))
		}
		head := m.time(e.Timestamp) + " · **" + inline(e.Type, 40) + "**"
		if len(where) > 0 {
			head += " · " + strings.Join(where, " · ")
		}
		msg := strings.TrimSpace(e.Message)
		if !strings.Contains(msg, "\n") && utf8.RuneCountInString(msg) <= mdMaxInline {
			m.p("- %s: %s\n", head, inline(msg, mdMaxInline))
			continue
		}
		m.p("- %s\n\n", head)
		m.block(msg, "  ")
		m.p("\n")
	}
	trimTrailingNewline(m.b)
	m.omitted(len(es)-len(shown), "earlier errors")
}

func (m *md) notifications() {
	ns := m.s.Notifications
	m.heading("Notifications", len(ns))
	if len(ns) == 0 {
		m.p("None.\n")
		return
	}
	shown := ns[max(0, len(ns)-mdMaxRows):]
	for _, n := range shown {
		kind := n.Type
		if kind == "" {
			kind = "notification"
		}
		m.p("- %s · %s: %s\n", m.time(n.Timestamp), inline(kind, 40), inline(n.Message, mdMaxInline))
	}
	m.omitted(len(ns)-len(shown), "earlier notifications")
}

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

func (m *md) decisions() {
	d := m.s.Decisions
	m.heading("Decisions", -1)
	m.p("- **Allows**: %s\n- **Blocks**: %s\n- **Denies**: %s\n- **Errors**: %s\n",
		num(int64(d.Allows)), num(int64(d.Blocks)), num(int64(d.Denies)), num(int64(d.Errors)))
	if len(d.Timeline) == 0 {
		m.p("\nNo gate or strategy decided anything in this session.\n")
		return
	}
	if d.DryRun > 0 {
		if d.DryRun == len(d.Timeline) {
			m.p("\nAll of them were dry runs: logged, not enforced.\n")
		} else if d.DryRun == 1 {
			m.p("\n1 of them was a dry run: logged, not enforced.\n")
		} else {
			m.p("\n%s of them were dry runs: logged, not enforced.\n", num(int64(d.DryRun)))
		}
	}
	m.p("\nSources: %s.\n", strings.Join(d.Sources, ", "))
	m.p("\n**Timeline**\n\n| Time | Source | Hook | Decision | Details |\n| --- | --- | --- | --- | --- |\n")
	shown := d.Timeline[max(0, len(d.Timeline)-mdMaxRows):]
	for _, r := range shown {
		dec := strings.ToUpper(r.Decision)
		details := r.Reason
		if details == "" {
			details = r.Message
		}
		if r.Error != "" {
			dec = "ERROR"
			details = strings.TrimSpace(r.Error + "; " + r.Reason)
		}
		if r.DryRun {
			dec += " (dry run)"
		}
		m.p("| %s | %s | %s | %s | %s |\n", m.time(r.Timestamp), cell(r.Source), cell(r.Hook), dec, cell(details))
	}
	m.omitted(len(d.Timeline)-len(shown), "earlier decisions")
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

// Text helpers.

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func statusLabel(s string) string {
	return strings.ReplaceAll(s, "_", " ")
}

// duration formats milliseconds for people: "0.4 s", "12 s", "4 min 12 s",
// "2 h 05 min".
func duration(msec float64) string {
	d := time.Duration(msec * float64(time.Millisecond))
	switch {
	case d < 10*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + " s"
	case d < time.Hour:
		return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%d h %02d min", int(d.Hours()), int(d.Minutes())%60)
}

// num formats an integer with thousands separators.
func num(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return num(int64(n)) + " " + word + "s"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[n:]
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func truncRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}

// inline makes text safe on one Markdown line: newlines become spaces,
// characters Markdown would read as markup are escaped, and it is cut to n
// characters.
func inline(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		s = truncRunes(s, n-1) + "…"
	}
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch r {
		case '\\', '`', '*', '[', ']', '<', '>', '|', '#':
			b.WriteByte('\\')
		case '_':
			// Inside a word (snake_case) an underscore is no markup.
			if i == 0 || i == len(rs)-1 || !wordRune(rs[i-1]) || !wordRune(rs[i+1]) {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// cell is inline text for a table cell.
func cell(s string) string { return inline(s, mdMaxCell) }

// code shows a path or id as inline code, with a fence that outlasts any
// backticks inside.
func code(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
