package export

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/internal/satmath"
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
	if s.Title != "" {
		m.p("- **Title**: %s\n", inline(s.Title, 200))
	}
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
	if satmath.Sum(t.Input, t.Output, t.CacheRead, t.CacheCreation) > 0 {
		m.p("- **Tokens**: %s in · %s out · %s cache read · %s cache write\n",
			num(t.Input), num(t.Output), num(t.CacheRead), num(t.CacheCreation))
	} else {
		m.p("- **Tokens**: none counted (no transcript read)\n")
	}
	switch c := s.Cost; {
	case c.USD != nil && c.LowerBound:
		m.p("- **Cost**: ≥ %s (%s; no price for %s)\n", pricing.Format(*c.USD), costSource(c), inline(strings.Join(c.Unpriced, ", "), 200))
	case c.USD != nil:
		m.p("- **Cost**: %s (%s)\n", pricing.Format(*c.USD), costSource(c))
	case len(c.Unpriced) > 0:
		m.p("- **Cost**: no estimate: no price for %s\n", inline(strings.Join(c.Unpriced, ", "), 200))
	}
	if c := s.Cost; c.ClaudeCodeGuessUSD != nil {
		m.p("- **Claude Code's guess**: %s (it priced a model it did not know at another model's rates; not part of the cost above)\n", pricing.Format(*c.ClaudeCodeGuessUSD))
	}
	if c := s.Cost; c.InheritedUSD != nil {
		m.p("- **Forked from**: %s (its parent's figure at the fork point, %s of the cost above, counts in that session)\n", inline(c.ForkedFrom, 80), pricing.Format(*c.InheritedUSD))
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

// costSource says where a cost figure comes from, for people.
func costSource(c Cost) string {
	switch c.Source {
	case pricing.SourceClaudeCode:
		return "Claude Code's own figure"
	case pricing.SourceClaudeCodeLive:
		return "Claude Code's live figure, from its status line"
	}
	return "estimate, each message at its model's price"
}
