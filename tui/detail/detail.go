// Package detail is the dashboard's session pane: the selected session's
// header (title, id, branch, cwd, start, duration, status, model, tokens,
// estimated cost, a context gauge, a sparkline of activity), its agents as
// a tree, todos and tasks, files touched (each once), tool counts as bars,
// prompts, errors and notifications, in a scrolling viewport. Its latest
// events are the events pane's.
package detail

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/internal/satmath"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/chart"
	"github.com/dylan-gluck/spcstr/tui/draw"
	"github.com/dylan-gluck/spcstr/tui/pane"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

// SparkMinutes is the detail's sparkline window: the last hour, whatever
// the pane's width.
const SparkMinutes = 60

// Model is the session pane.
type Model struct {
	// Keys is the pane's keys: only scrolling.
	Keys    pane.ScrollKeys
	styles  *theme.Styles
	vp      viewport.Model
	sum     store.Summary
	display string // the status to show (store.Status*)
	has     bool
	sess    *state.Session
	recent  []store.Event
	width   int
	height  int
	prices  pricing.Table
}

var (
	_ pane.Component = (*Model)(nil)
	_ pane.Scroller  = (*Model)(nil)
)

// ShortHelp implements help.KeyMap: none, the footer offers moving between
// sessions and panes instead (the scrolling keys are in the full help).
func (m *Model) ShortHelp() []key.Binding { return nil }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return [][]key.Binding{m.Keys.Bindings()} }

// New returns an empty pane.
func New(st *theme.Styles) *Model {
	vp := viewport.New()
	vp.KeyMap = viewport.KeyMap{} // keys are handled here
	vp.MouseWheelEnabled = false
	return &Model{Keys: pane.DefaultScrollKeys("top", "bottom"), styles: st, vp: vp}
}

// SetPrices sets the price table the cost is estimated with (nil: no
// cost shown).
func (m *Model) SetPrices(t pricing.Table) { m.prices = t }

// SetStyles replaces the styles.
func (m *Model) SetStyles(st *theme.Styles) { m.styles = st }

// SetSize sets the pane's size.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.vp.SetWidth(w)
	m.vp.SetHeight(h)
}

// SetSession shows a session: its summary, the status to show
// (store.Status*) and its state (nil when it could not be read). Scrolling
// is kept when it is the same session.
func (m *Model) SetSession(sum store.Summary, display string, s *state.Session, now time.Time) {
	if !m.has || sum.ID != m.sum.ID {
		m.vp.GotoTop()
	}
	m.sum, m.display, m.sess, m.has = sum, display, s, true
	m.Refresh(now)
}

// SetSummary updates the summary and status shown without a new state.
func (m *Model) SetSummary(sum store.Summary, display string, now time.Time) {
	if m.has && sum.ID == m.sum.ID {
		m.sum, m.display = sum, display
		m.Refresh(now)
	}
}

// Clear shows no session.
func (m *Model) Clear() {
	m.has, m.sess, m.recent = false, nil, nil
	m.vp.SetContent("")
}

// SetRecent sets the session's latest events (oldest first).
func (m *Model) SetRecent(evs []store.Event, now time.Time) {
	m.recent = evs
	m.Refresh(now)
}

// ScrollKeys implements pane.Scroller.
func (m *Model) ScrollKeys() pane.ScrollKeys { return m.Keys }

// Scroll implements pane.Scroller.
func (m *Model) Scroll(mv pane.Move) { pane.ScrollViewport(&m.vp, mv) }

// Update handles scrolling keys.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if mv, ok := m.Keys.Match(k); ok {
			m.Scroll(mv)
		}
	}
	return nil
}

// View draws the pane.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	return m.vp.View()
}

// ClockKey is what the pane shows that changes with the time alone: the
// session's run time while it runs, its running agents' times, and the
// sparkline's current minute. Refresh is needed only when it changed.
func (m *Model) ClockKey(now time.Time) string {
	s := m.sess
	if !m.has || s == nil {
		return ""
	}
	var b strings.Builder
	if len(s.Activity) > 0 {
		b.WriteString(strconv.FormatInt(now.Unix()/60, 10))
	}
	if !s.CreatedAt.IsZero() && m.display != store.StatusEnded && m.display != store.StatusStale {
		b.WriteString(" " + text.Duration(now.Sub(s.CreatedAt).Round(time.Second)))
	}
	for i := range s.AgentsHistory {
		if a := &s.AgentsHistory[i]; a.Running() && !a.StartedAt.IsZero() {
			b.WriteString(" " + text.Duration(now.Sub(a.StartedAt).Round(time.Second)))
		}
	}
	return b.String()
}

// Refresh rebuilds the content (durations and ages are relative to now).
func (m *Model) Refresh(now time.Time) {
	if !m.has {
		m.vp.SetContent(m.styles.Subtle.Render(" No session selected."))
		return
	}
	y := m.vp.YOffset()
	m.vp.SetContent(strings.Join(m.render(now), "\n"))
	m.vp.SetYOffset(y)
}

func (m *Model) render(now time.Time) []string {
	st := m.styles
	w := max(m.width, 10)
	r := m.sum
	s := m.sess
	var out []string
	add := func(line string) { out = append(out, text.Fit(line, w)) }
	section := func(title string) {
		out = append(out, "")
		add(st.Section.Render(title))
	}

	sym, label := draw.Symbol(m.display)
	paint := draw.StatusStyle(st, m.display)
	add(paint(sym+" "+label) + "  " + st.Title.Render(r.ID))
	if r.Title != "" {
		for _, l := range wrapIndent(st.Bold.Render(r.Title), w, 0) {
			add(l)
		}
	}
	if m.display == store.StatusNeedsInput && r.Asks != "" {
		for _, l := range wrapIndent(st.NeedsInput.Render("waiting for you: "+r.Asks), w, 2) {
			add(l)
		}
	}
	if s == nil {
		add("")
		msg := r.Damaged
		if msg == "" {
			msg = "loading…"
		}
		for _, l := range text.Wrap(msg, w-2) {
			add(" " + st.Warn.Render(l))
		}
		add(st.Faint.Render(" The events below come from the logs."))
		out = append(out, m.eventLines(w, 20)...)
		return out
	}
	kv := func(k, v string) {
		if v != "" {
			add(st.Subtle.Render(fmt.Sprintf("%-8s", k)) + " " + v)
		}
	}
	kv("branch", st.Info.Render(s.Branch))
	if s.Cwd != "" && s.Cwd != s.ProjectDir {
		kv("cwd", s.Cwd)
	} else {
		kv("project", s.ProjectDir)
	}
	kv("model", s.Model)
	if !s.CreatedAt.IsZero() {
		// An ended or stale session ran until its last event.
		end := now
		if m.display == store.StatusEnded || m.display == store.StatusStale {
			end = lastAt(s, now)
		}
		kv("started", s.CreatedAt.Local().Format("Jan 2 15:04:05")+st.Subtle.Render(" · ran "+text.Duration(end.Sub(s.CreatedAt).Round(time.Second))))
	}
	if s.Status == state.StatusEnded && s.EndReason != "" {
		kv("ended", draw.EndReason(s.EndReason))
	}
	if m.display == store.StatusStale {
		add(st.Stale.Render("stale: its Claude Code process is gone"))
	}
	t := s.Tokens
	// One figure, one set of tokens: beside Claude Code's figure, its own
	// counts (they include the compaction and side requests no transcript
	// has), beside the estimate the transcripts'.
	ft := state.ModelUsage{Input: t.Input, Output: t.Output, CacheRead: t.CacheRead, CacheCreation: t.CacheCreation}
	if m.prices != nil {
		if sc := m.prices.Session(s); satmath.Sum(sc.Tokens.Input, sc.Tokens.Output, sc.Tokens.CacheRead, sc.Tokens.CacheCreation) > 0 {
			ft = sc.Tokens
		}
	}
	if satmath.Sum(ft.Input, ft.Output, ft.CacheRead, ft.CacheCreation) > 0 {
		kv("tokens", fmt.Sprintf("in %s  out %s  cache %s/%s", text.Count(ft.Input), text.Count(ft.Output),
			text.Count(ft.CacheRead), text.Count(ft.CacheCreation)))
		if m.prices != nil {
			for i, line := range m.costLines(s) {
				if i == 0 {
					kv("cost", line)
				} else {
					kv("", line)
				}
			}
		}
	}
	if t.ContextWindow > 0 {
		pct := t.ContextPercent()
		tail := fmt.Sprintf(" %3.0f%% %s/%s", pct, text.Count(t.ContextUsed), text.Count(t.ContextWindow))
		gw := max(w-9-text.Width(tail), 4)
		f, e := chart.Gauge(pct, gw)
		add(st.Subtle.Render(fmt.Sprintf("%-8s", "context")) + " " + draw.CtxStyle(st, pct)(f) + st.BarEmpty.Render(e) + tail)
	}
	if len(s.Activity) > 0 {
		sw := max(w-9, 4)
		nowMin := now.Unix() / 60
		spark, per := chart.SparkWindow(s.Activity, nowMin, SparkMinutes, sw)
		add(st.Subtle.Render(fmt.Sprintf("%-8s", "events")) + " " + st.Spark.Render(spark))
		label := fmt.Sprintf("%d in the last %d min", chart.Total(s.Activity, nowMin, SparkMinutes), SparkMinutes)
		if per > 1 {
			label += fmt.Sprintf(", %d min a mark", per)
		}
		label += fmt.Sprintf("; %d in all", total(s.EventCounts))
		for _, l := range text.Wrap(label, sw) {
			add(st.Faint.Render(fmt.Sprintf("%-8s %s", "", l)))
		}
	}
	if s.Compactions > 0 {
		kv("compact", text.Plural(s.Compactions, "compaction"))
	}

	// Agents as a tree.
	running := 0
	for i := range s.AgentsHistory {
		if s.AgentsHistory[i].Running() {
			running++
		}
	}
	section(fmt.Sprintf("Agents  %d, %d running", max(s.AgentsTotal, len(s.AgentsHistory)), running))
	if len(s.AgentsHistory) == 0 {
		add(st.Faint.Render(" none"))
	}
	for i, a := range s.AgentsHistory {
		last := i == len(s.AgentsHistory)-1
		branch, stem := "├─ ", "│  "
		if last {
			branch, stem = "└─ ", "   "
		}
		out = append(out, m.agentLines(a, branch, stem, now, w)...)
	}

	if len(s.Todos) > 0 {
		done := 0
		for _, td := range s.Todos {
			if td.Status == "completed" {
				done++
			}
		}
		section(fmt.Sprintf("Todos  %d/%d done", done, len(s.Todos)))
		for _, td := range s.Todos {
			add(" " + todoMark(st, td.Status) + " " + td.Content)
		}
	}
	if len(s.Tasks) > 0 {
		section(fmt.Sprintf("Tasks  %d", len(s.Tasks)))
		for _, tk := range s.Tasks {
			subj := tk.Subject
			if subj == "" {
				subj = tk.Description
			}
			add(" " + todoMark(st, tk.Status) + " " + st.Faint.Render("#"+tk.ID) + " " + subj)
		}
	}

	files := filesOnce(s.Files)
	counts := map[string]int{}
	for _, f := range files {
		counts[f.how]++
	}
	section(fmt.Sprintf("Files  %d new · %d edited · %d read", counts["+"], counts["~"], counts["·"]))
	for _, f := range files {
		mark := st.Faint.Render(f.how)
		switch f.how {
		case "+":
			mark = st.OK.Render(f.how)
		case "~":
			mark = st.Warn.Render(f.how)
		}
		add(" " + mark + " " + rel(f.path))
	}

	section("Tools  " + text.Plural(s.ToolCalls(), "call"))
	out = append(out, toolBars(st, s.ToolsUsed, w)...)

	section(fmt.Sprintf("Prompts  %d", max(s.PromptsTotal, len(s.Prompts))))
	for _, p := range lastN(s.Prompts, 20) {
		mark := ""
		if p.Kind == state.PromptKindTaskNotification {
			mark = st.Info.Render("⚑ ")
		}
		line := st.Subtle.Render(draw.Clock(p.Timestamp)) + " " + mark + store.OneLine(p.Prompt, 400)
		if p.Truncated {
			line += st.Faint.Render(" [cut]")
		}
		out = append(out, wrapIndent(line, w, 3)...)
	}

	section(fmt.Sprintf("Errors  %d", max(s.ErrorsTotal, len(s.Errors))))
	for _, e := range lastN(s.Errors, 20) {
		line := st.Subtle.Render(draw.Clock(e.Timestamp)) + " " + st.Error.Render(store.ErrorLabel(e)) + " " + store.OneLine(e.Message, 400)
		out = append(out, wrapIndent(line, w, 3)...)
	}

	section(fmt.Sprintf("Notifications  %d", max(s.NotificationsTotal, len(s.Notifications))))
	for _, n := range lastN(s.Notifications, 20) {
		msg := n.Message
		if n.Title != "" {
			msg = n.Title + ": " + msg
		}
		line := st.Subtle.Render(draw.Clock(n.Timestamp)) + " " + st.NeedsInput.Render(n.Type) + " " + store.OneLine(msg, 400)
		out = append(out, wrapIndent(line, w, 3)...)
	}
	return out
}

func (m *Model) agentLines(a state.Agent, branch, stem string, now time.Time, w int) []string {
	st := m.styles
	name := a.AgentType
	if name == "" {
		name = a.Name
	}
	var mark string
	switch {
	case a.Running():
		mark = st.Working.Render("●")
	case a.Result == "FAIL" || a.Status == state.AgentFailed:
		mark = st.Error.Render("✗")
	default:
		mark = st.OK.Render("✓")
	}
	var dur string
	switch {
	case a.Running() && !a.StartedAt.IsZero():
		dur = st.Working.Render("running " + text.Duration(now.Sub(a.StartedAt).Round(time.Second)))
	case a.DurationMS > 0:
		dur = text.Duration(time.Duration(a.DurationMS * float64(time.Millisecond)))
	case a.CompletedAt != nil && !a.StartedAt.IsZero():
		dur = text.Duration(a.CompletedAt.Sub(a.StartedAt))
	}
	head := st.Faint.Render(branch) + mark + " " + st.Bold.Render(name)
	if a.Background {
		head += " " + st.Info.Render("[bg]")
	}
	if dur != "" {
		head += " " + st.Subtle.Render(dur)
	}
	if a.Marker != "" || a.Result != "" {
		res := a.Marker
		if res == "" {
			res = a.Result
		}
		if a.Result == "FAIL" {
			head += " " + st.Error.Render(res)
		} else {
			head += " " + st.OK.Render(res)
		}
	}
	lines := []string{text.Fit(head, w)}
	if a.Description != "" {
		lines = append(lines, text.Fit(st.Faint.Render(stem)+"  "+st.Subtle.Render(a.Description), w))
	}
	if len(a.ToolsUsed) > 0 {
		names := slices.Sorted(maps.Keys(a.ToolsUsed))
		var parts []string
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%s×%d", n, a.ToolsUsed[n]))
		}
		lines = append(lines, text.Fit(st.Faint.Render(stem+"  "+strings.Join(parts, " ")), w))
	}
	return lines
}

func (m *Model) eventLines(w, n int) []string {
	return draw.EventLines(m.styles, lastN(m.recent, n), w, false)
}
