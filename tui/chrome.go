package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/dylan-gluck/spcstr/tui/draw"
	"github.com/dylan-gluck/spcstr/tui/reqpane"
	"github.com/dylan-gluck/spcstr/tui/text"
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
	right := st.Subtle.Render(count)
	if c := costTotals(m.strategies.prices, m.st.Summaries(), m.now()); c != "" && m.width >= 100 {
		right = st.Subtle.Render(c) + " " + right
	}
	if n := m.st.NeedsInput(); n > 0 {
		right += " " + st.NeedsInput.Render(fmt.Sprintf("%d need input", n))
	}
	if live > 0 {
		right += " " + st.Working.Render(fmt.Sprintf("%d live", live))
	}
	if m.st.Loading() {
		right += " " + st.Faint.Render("reading…")
	}
	if m.follow {
		right += " " + st.Info.Render("⇣follow")
	}
	if !m.watching && !m.opt.NoWatch {
		right += " " + st.Warn.Render("◌")
	}
	// The strategies go after the title when they fit beside the rest,
	// else their count; never wrapped.
	for _, s := range m.strategyLabels() {
		if text.Width(title)+1+text.Width(s)+1+text.Width(right) <= m.width {
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
	if s.conflict {
		return []string{st.Warn.Render("strategies: conflict (not enforced)"), st.Warn.Render("strategies: conflict")}
	}
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
	if m.status != "" {
		return text.Fit(st.Warn.Render(m.status), m.width)
	}
	// The focused pane's keys, then the global ones that apply there.
	focused := m.pane(m.focus)
	var ks []key.Binding
	switch {
	case m.showHelp:
		ks = []key.Binding{m.keys.Quit}
	case m.focus == PaneSessions && m.list.Editing(), m.focus == PaneEvents && m.ev.Editing():
		ks = focused.ShortHelp() // the filter's keys only
	case m.focus == PaneSessions:
		ks = append(focused.ShortHelp(), m.keys.Follow, m.keys.Help, m.keys.Quit)
	default:
		ks = focused.ShortHelp()
		if len(ks) == 0 {
			// A pane with only scrolling keys: offer moving on.
			ks = []key.Binding{m.keys.NextSession, m.keys.NextPane}
		}
		ks = append(ks, m.keys.Back, m.keys.Help, m.keys.Quit)
	}
	// Short help without the long "coming with" suffixes.
	short := make([]key.Binding, 0, len(ks))
	for _, b := range ks {
		d := strings.TrimSuffix(b.Help().Desc, " ("+reqpane.ComingSoon+")")
		short = append(short, key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, d)))
	}
	return text.Fit(m.help.ShortHelpView(short), m.width)
}

type helpGroup struct {
	title string
	keys  []key.Binding
}

// helpTitles are the panes' titles in the help overlay.
var helpTitles = [...]string{"Sessions", "Detail", "Events", "Requirements", "Feedback loop"}

// helpGroups lists every key: the global ones, then each pane's FullHelp,
// then the mouse.
func (m Model) helpGroups() []helpGroup {
	g := m.keys
	groups := []helpGroup{
		{"Everywhere", []key.Binding{g.Help, g.Quit, g.NextPane, g.PrevPane, g.Pane1, g.Pane2, g.Pane3, g.Pane4, g.Pane5, g.Back, g.Follow, g.PrevSession, g.NextSession}},
	}
	for p := range paneCount {
		var ks []key.Binding
		for _, col := range m.pane(p).FullHelp() {
			ks = append(ks, col...)
		}
		groups = append(groups, helpGroup{helpTitles[p], ks})
	}
	return append(groups, helpGroup{"Mouse", []key.Binding{
		key.NewBinding(key.WithHelp("wheel", "scroll the pane under the pointer")),
		key.NewBinding(key.WithHelp("click", "select a session or a tab")),
	}})
}

// helpView draws the help overlay, h lines from the scroll offset.
func (m Model) helpView(h int) string {
	st := m.styles
	w := m.width
	var lines []string
	for _, g := range m.helpGroups() {
		lines = append(lines, text.Fit(st.Section.Render(g.title), w))
		kw := 0
		for _, b := range g.keys {
			kw = max(kw, text.Width(b.Help().Key))
		}
		kw = min(kw, 12)
		for _, b := range g.keys {
			desc := text.Wrap(b.Help().Desc, max(w-kw-3, 10))
			for i, dl := range desc {
				k := strings.Repeat(" ", kw)
				if i == 0 {
					k = text.Fit(b.Help().Key, kw)
				}
				lines = append(lines, text.Fit(" "+st.Key.Render(k)+"  "+st.Subtle.Render(dl), w))
			}
		}
		lines = append(lines, "")
	}
	return draw.Window(lines, m.helpOffset, w, h)
}
