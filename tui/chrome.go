package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/draw"
	"github.com/dylan-gluck/spcstr/tui/reqs"
	"github.com/dylan-gluck/spcstr/tui/sessions"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/timeline"
)

// The chrome around the panes: the header (project, strategies, counts,
// follow and watch marks), the footer (a flash message, else the focused
// pane's keys) and the help overlay listing every key.

func (m Model) header() string {
	st := m.styles
	title := st.Title.Render("spcstr")
	if m.opt.Title != "" {
		title += " " + st.Info.Render(m.opt.Title)
	}
	if m.width >= 60 {
		title += " " + st.Subtle.Render(m.project)
	}
	live := m.st.Live()
	shown, total := m.list.Len()
	count := text.Plural(total, "session")
	if shown != total {
		count = fmt.Sprintf("%d/%d sessions", shown, total)
	}
	// The marks on the right, each with the rank at which it is dropped
	// when the line is too narrow for all (lowest first; 0 stays).
	type mark struct {
		s    string
		drop int
	}
	var marks []mark
	if off := m.strategies.off; len(off) > 0 {
		marks = append(marks, mark{st.Warn.Render("off: " + strings.Join(off, ", ")), 0})
	}
	if closing := m.strategies.closing; len(closing) > 0 {
		// A closed strategy whose settings cannot be used denies or
		// blocks everything it covers until its config is fixed.
		marks = append(marks, mark{st.Error.Render("config error, closed: " + strings.Join(closing, ", ")), 0})
	}
	if m.strategies.dryRun {
		dry := "gates: dry run"
		if m.width < 60 {
			dry = "dry run"
		}
		marks = append(marks, mark{st.Warn.Render(dry), 0})
	}
	if c := costTotals(m.strategies.prices, m.st.Summaries(), m.now()); c != "" {
		marks = append(marks, mark{st.Subtle.Render(c), 4})
	}
	// Until the session list is read, no count: "0 sessions" would be
	// a wrong number (the first frame is drawn before any read).
	reading := !m.st.Ready() || m.st.Loading()
	if m.st.Ready() || total > 0 {
		marks = append(marks, mark{st.Subtle.Render(count), 3})
	}
	if n := m.st.NeedsInput(); n > 0 {
		marks = append(marks, mark{st.NeedsInput.Render(fmt.Sprintf("%d need you", n)), 0})
	}
	if live > 0 {
		marks = append(marks, mark{st.Working.Render(fmt.Sprintf("%d live", live)), 5})
	}
	if n := m.ev.FailedOpen(); n > 0 {
		marks = append(marks, mark{st.Warn.Render(fmt.Sprintf("%d failed open", n)), 0})
	}
	if reading {
		marks = append(marks, mark{st.Faint.Render("reading…"), 1})
	}
	if m.follow {
		marks = append(marks, mark{st.Info.Render("⇣follow"), 2})
	}
	if m.watchTried && !m.watching && !m.opt.NoWatch {
		marks = append(marks, mark{st.Warn.Render("not watching"), 0})
	}
	join := func(limit int) string {
		var parts []string
		for _, k := range marks {
			if k.drop == 0 || k.drop > limit {
				parts = append(parts, k.s)
			}
		}
		return strings.Join(parts, " ")
	}
	right := join(0)
	dropped := false
	for limit := 1; limit <= 5 && text.Width(title)+1+text.Width(right) > m.width; limit++ {
		right, dropped = join(limit), true
	}
	// The strategies go after the title when they fit beside every
	// figure, else their count; never wrapped, and never in place of a
	// figure (names are decoration the Reqs and Loop panes repeat).
	for _, s := range m.strategyLabels() {
		if !dropped && text.Width(title)+1+text.Width(s)+1+text.Width(right) <= m.width {
			title += " " + s
			break
		}
	}
	return text.Right(title, " "+right, m.width)
}

// strategyLabels are the header's strategy labels, longest first (none
// when no strategy is enabled).
func (m Model) strategyLabels() []string {
	st := m.styles
	s := m.strategies
	if len(s.active) == 0 {
		return nil
	}
	names := make([]string, 0, len(s.active))
	dry := 0
	for _, a := range s.active {
		n := a.Name
		if a.DryRun || s.dryRun {
			n += " (dry run)"
			dry++
		}
		names = append(names, n)
	}
	count := fmt.Sprintf("%d strategies", len(names))
	if len(names) == 1 {
		count = "1 strategy"
	}
	if dry > 0 {
		count += fmt.Sprintf(" (%d dry run)", dry)
	}
	return []string{st.Subtle.Render("strategies: " + strings.Join(names, ", ")), st.Subtle.Render(count)}
}

func (m Model) footer() string {
	st := m.styles
	if q := m.confirmLine(); q != "" {
		return text.Fit(st.NeedsInput.Render(q), m.width)
	}
	if m.status != "" {
		return text.Fit(st.Warn.Render(m.status), m.width)
	}
	// The focused pane's keys, then the global ones that apply there; the
	// last ones (? and q) always stay, the others are dropped from the
	// end until the line fits.
	focused := m.pane(m.focus)
	var ks, keep []key.Binding
	switch {
	case m.card.Active():
		keep = append(m.card.ShortHelp(), key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")))
	case m.showHelp:
		keep = []key.Binding{m.keys.CloseHelp, key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit"))}
	case m.showEntry:
		ks = m.entry.ShortHelp()
		keep = []key.Binding{m.entry.Keys.Close, key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit"))}
	case m.showTimeline:
		ks = m.tl.ShortHelp()
		keep = []key.Binding{m.tl.Keys.Close, key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit"))}
	case m.focus == PaneSessions && m.list.Editing(), m.focus == PaneEvents && m.ev.Editing():
		keep = focused.ShortHelp() // the filter's keys only
	case m.focus == PaneSessions:
		ks = append(focused.ShortHelp(), m.keys.NextNeeding, m.keys.Focus, m.keys.Follow)
		keep = []key.Binding{m.keys.Help, m.keys.Quit}
	default:
		ks = focused.ShortHelp()
		if len(ks) == 0 {
			// A pane with only scrolling keys: offer moving on.
			ks = []key.Binding{m.keys.NextSession, m.keys.NextPane}
		}
		ks = append(ks, m.keys.Back)
		keep = []key.Binding{m.keys.Help, m.keys.Quit}
	}
	h := m.help
	h.SetWidth(0) // measure whole lines; help would cut them with "…"
	for n := len(ks); n >= 0; n-- {
		line := h.ShortHelpView(shortKeys(append(ks[:n:n], keep...)))
		if text.Width(line) <= m.width || n == 0 {
			return text.Fit(line, m.width)
		}
	}
	return ""
}

// shortKeys drops the long "coming with" suffixes from the footer's keys.
func shortKeys(ks []key.Binding) []key.Binding {
	short := make([]key.Binding, 0, len(ks))
	for _, b := range ks {
		d := strings.TrimSuffix(b.Help().Desc, " ("+reqs.ComingSoon+")")
		short = append(short, key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, d)))
	}
	return short
}

type helpGroup struct {
	title string
	keys  []key.Binding
}

// helpTitles are the panes' titles in the help overlay.
var helpTitles = [...]string{"Sessions", "Detail", "Events", "Requirements", "Feedback loop"}

// legend binds a symbol or abbreviation the screen shows to its meaning
// (a help line without a key).
func legend(sym, desc string) key.Binding { return key.NewBinding(key.WithHelp(sym, desc)) }

// helpGroups lists every key: the global ones, then each pane's FullHelp,
// then the mouse; then what the row's and the header's abbreviations
// mean.
func (m Model) helpGroups() []helpGroup {
	g := m.keys
	groups := []helpGroup{
		{"Everywhere", []key.Binding{g.Help, g.CloseHelp, g.Quit, g.Focus, g.Timeline, g.NextPane, g.PrevPane, g.Pane1, g.Pane2, g.Pane3, g.Pane4, g.Pane5, g.Back, g.Follow, g.NextNeeding, g.PrevSession, g.NextSession}},
		{"Permission card (while one is up)", m.card.FullHelp()[0]},
	}
	for p := range paneCount {
		var ks []key.Binding
		for _, col := range m.pane(p).FullHelp() {
			ks = append(ks, col...)
		}
		groups = append(groups, helpGroup{helpTitles[p], ks})
	}
	groups = append(groups, helpGroup{"Mouse", []key.Binding{
		legend("wheel", "scroll the pane under the pointer"),
		legend("click", "select a session or a tab"),
	}})
	var tl []key.Binding
	for _, col := range m.tl.FullHelp() {
		tl = append(tl, col...)
	}
	for _, l := range timeline.Legend() {
		tl = append(tl, legend(l[0], l[1]))
	}
	groups = append(groups, helpGroup{"Timeline (t)", tl})
	return append(groups,
		helpGroup{"A session's row", []key.Binding{
			legend("!", string(state.NeedsPermission)+": "+state.NeedsPermission.Meaning()),
			legend("?", string(state.AsksQuestion)+": "+state.AsksQuestion.Meaning()),
			legend("◌", string(state.Idle)+": "+state.Idle.Meaning()),
			legend("●", string(state.Working)+": "+state.Working.Meaning()),
			legend("✗", string(state.Failed)+": "+state.Failed.Meaning()),
			legend("○", string(state.Ended)+": "+state.Ended.Meaning()),
			legend("⊘", string(state.Gone)+": "+state.Gone.Meaning()),
			legend("·", string(state.Unknown)+": "+state.Unknown.Meaning()),
			legend("3m", "time since its last event"),
			legend("a1b2c3d4", "the session id's start, then its git branch"),
			legend("▁▃█", fmt.Sprintf("events per minute over the last %d min", sessions.SparkMinutes)),
			legend("17t", "tool calls"),
			legend("1e", "errors (failed tool calls and hooks)"),
			legend(sessions.GateStoppedMark+"2", "gate decisions that denied a tool call or blocked (a Stop block keeps Claude working); the Decisions view (3, d) says which gate and why"),
			legend(sessions.GateAskedMark+"1", "gate decisions that asked you to confirm a tool call"),
			legend(sessions.GateFailedOpenMark+"1", "gates that could not decide and failed open: the action went ahead unchecked"),
			legend("1a", "subagents running now"),
			legend("11%", "context window used"),
			legend("~$0.30", "estimated cost at list prices"),
		}},
		helpGroup{"The header", []key.Binding{
			legend("3 sessions", "sessions listed (shown/all while filtered)"),
			legend("1 need you", "sessions that need permission or ask a question"),
			legend("2 live", "sessions whose Claude Code process runs"),
			legend("gates: dry run", "gates log what they would decide and block nothing (dry_run in .spcstr/config.yaml)"),
			legend("(dry run)", "after a strategy: the same, for that strategy"),
			legend("⇣follow", "the cursor follows the session that needs you, else the newest (f); paused while a session is open"),
			legend("not watching", "the files are not watched: the screen does not refresh"),
			legend("reading…", "sessions are still being read"),
		}},
	)
}

// helpColumns is how many columns the help overlay uses at width w.
func helpColumns(w int) int { return min(max(w/40, 1), 3) }

// groupLines draws one help group at width w.
func (m Model) groupLines(g helpGroup, w int) []string {
	st := m.styles
	lines := []string{text.Fit(st.Section.Render(g.title), w)}
	kw := 0
	for _, b := range g.keys {
		kw = max(kw, text.Width(b.Help().Key))
	}
	kw = min(kw, 14)
	for _, b := range g.keys {
		k := b.Help().Key
		if text.Width(k) > kw {
			// A long key gets its own line; its meaning goes under it.
			lines = append(lines, text.Fit(" "+st.Key.Render(k), w))
			k = ""
		}
		desc := text.Wrap(b.Help().Desc, max(w-kw-3, 10))
		for i, dl := range desc {
			kk := strings.Repeat(" ", kw)
			if i == 0 {
				kk = text.Fit(k, kw)
			}
			lines = append(lines, text.Fit(" "+st.Key.Render(kk)+"  "+st.Subtle.Render(dl), w))
		}
	}
	return append(lines, "")
}

// helpLines lays the help groups out in columns when the pane is wide
// (each group whole in one column, the columns about equally long).
func (m Model) helpLines() []string {
	w := m.width
	cols := helpColumns(w)
	gap := 2
	cw := (w - gap*(cols-1)) / cols
	var blocks [][]string
	total := 0
	for _, g := range m.helpGroups() {
		b := m.groupLines(g, cw)
		blocks = append(blocks, b)
		total += len(b)
	}
	if cols == 1 {
		var lines []string
		for _, b := range blocks {
			lines = append(lines, b...)
		}
		return lines
	}
	target := (total + cols - 1) / cols
	columns := make([][]string, cols)
	c := 0
	for _, b := range blocks {
		if c < cols-1 && len(columns[c]) > 0 && len(columns[c])+len(b)/2 > target {
			c++
		}
		columns[c] = append(columns[c], b...)
	}
	n := 0
	for _, col := range columns {
		n = max(n, len(col))
	}
	lines := make([]string, n)
	for i := range lines {
		var row strings.Builder
		for j, col := range columns {
			cell := ""
			if i < len(col) {
				cell = col[i]
			}
			if j > 0 {
				row.WriteString(strings.Repeat(" ", gap))
			}
			row.WriteString(text.Fit(cell, cw))
		}
		lines[i] = row.String()
	}
	return lines
}

// helpView draws the help overlay, h lines from the scroll offset.
func (m Model) helpView(h int) string {
	return draw.Window(m.helpLines(), m.helpOffset, m.width, h)
}
