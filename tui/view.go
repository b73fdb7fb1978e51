package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/tui/text"
)

// The layout: a header line, a tab line, the panes' body and a footer. In
// the wide layout the sessions list sits left of the other panes.

func (m Model) bodyHeight() int { return max(m.height-3, 1) }

func (m Model) listWidth() int {
	if !m.wide() {
		return m.width
	}
	// Two fifths of the width up to 56 columns; from 180 columns half of
	// it, up to 100, so that a long title is not cut.
	if m.width >= 180 {
		return min(m.width/2, 100)
	}
	return min(max(m.width*2/5, 36), 56)
}

// splitEvents reports the height of the event tail under the detail in the
// wide layout (0: no split).
func (m Model) splitEvents() int {
	if !m.wide() || m.right != PaneDetail || m.bodyHeight() < 30 {
		return 0
	}
	return min(14, m.bodyHeight()/3)
}

func (m *Model) layout() {
	if m.width <= 0 || m.height <= 0 {
		return
	}
	bh := m.bodyHeight()
	if m.wide() {
		lw := m.listWidth()
		rw := m.width - lw - 1
		m.list.SetSize(lw, bh)
		if ev := m.splitEvents(); ev > 0 {
			m.det.SetSize(rw, bh-ev-1)
			m.ev.SetSize(rw, ev)
		} else {
			m.det.SetSize(rw, bh)
			m.ev.SetSize(rw, bh)
		}
		m.req.SetSize(rw, bh)
		m.fb.SetSize(rw, bh)
	} else {
		m.list.SetSize(m.width, bh)
		m.det.SetSize(m.width, bh)
		m.ev.SetSize(m.width, bh)
		m.req.SetSize(m.width, bh)
		m.fb.SetSize(m.width, bh)
	}
	m.help.SetWidth(m.width)
	m.entry.SetSize(m.width, bh+1)
	m.tl.SetSize(m.width, bh+1)
	m.det.Refresh(m.now())
}

func (m Model) tabPanes() []Pane {
	if m.wide() {
		return []Pane{PaneDetail, PaneEvents, PaneRequirements, PaneFeedback}
	}
	return []Pane{PaneSessions, PaneDetail, PaneEvents, PaneRequirements, PaneFeedback}
}

func (m Model) tabAt(x int) (Pane, bool) {
	pos := 0
	if m.wide() {
		pos = m.listWidth() + 1
	}
	for _, p := range m.tabPanes() {
		w := text.Width(paneNames[p]) + 2
		if x >= pos && x < pos+w {
			return p, true
		}
		pos += w
	}
	return 0, false
}

// focusedTab is the label of the focused pane's tab: in brackets, so that
// it shows without colour or reverse video (same width as " name ").
func focusedTab(name string) string { return "[" + name + "]" }

func (m Model) tabs(active Pane, w int) string {
	var b strings.Builder
	for _, p := range m.tabPanes() {
		label := " " + paneNames[p] + " "
		switch {
		case p == active && p == m.focus:
			b.WriteString(m.styles.TabActive.Render(focusedTab(paneNames[p])))
		case p == active:
			b.WriteString(m.styles.TabShown.Render(label))
		default:
			b.WriteString(m.styles.Tab.Render(label))
		}
	}
	return text.Fit(b.String(), w)
}

// View draws the dashboard.
func (m Model) View() tea.View {
	v := tea.NewView(m.frame())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "spcstr · " + m.project
	return v
}

// frame is Render's result, drawn again only when an update may have
// changed it (Bubble Tea asks for the view after every message, the clock
// ticks included).
func (m Model) frame() string {
	c := m.shared
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.framed || c.frameGen != m.gen {
		c.frame, c.frameGen, c.framed = m.Render(), m.gen, true
	}
	return c.frame
}

// Render draws the dashboard as a string (the View's content).
func (m Model) Render() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	st := m.styles
	w := m.width
	lines := []string{m.header()}
	if m.showHelp {
		lines = append(lines, text.Fit(st.Section.Render("Help")+st.Faint.Render("  (q/esc close · j/k scroll)"), w))
		lines = append(lines, m.helpView(m.bodyHeight()))
		lines = append(lines, m.footer())
		return strings.Join(lines, "\n")
	}
	if m.showEntry {
		lines = append(lines, m.entry.View(), m.footer())
		return strings.Join(lines, "\n")
	}
	if m.showTimeline {
		lines = append(lines, m.tl.View(), m.footer())
		return strings.Join(lines, "\n")
	}
	bh := m.bodyHeight()
	if m.wide() {
		lw := m.listWidth()
		rw := w - lw - 1
		listTitle := st.Section.Render("Sessions")
		if m.focus == PaneSessions {
			listTitle = st.TabActive.Render(focusedTab("Sessions"))
		}
		lines = append(lines, text.Fit(listTitle, lw)+st.Faint.Render("│")+m.tabs(m.rightActive(), rw))
		left := strings.Split(m.list.View(), "\n")
		right := strings.Split(m.rightView(), "\n")
		sep := st.Faint.Render("│")
		for i := 0; i < bh; i++ {
			l, r := "", ""
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			lines = append(lines, text.Fit(l, lw)+sep+text.Fit(r, rw))
		}
	} else {
		lines = append(lines, m.tabs(m.focus, w))
		var body string
		switch m.focus {
		case PaneSessions:
			body = m.list.View()
		default:
			body = m.paneView(m.focus)
		}
		bl := strings.Split(body, "\n")
		for i := 0; i < bh; i++ {
			l := ""
			if i < len(bl) {
				l = bl[i]
			}
			lines = append(lines, text.Fit(l, w))
		}
	}
	lines = append(lines, m.footer())
	return strings.Join(lines, "\n")
}

func (m Model) rightActive() Pane {
	if m.focus == PaneSessions {
		return m.right
	}
	return m.focus
}

func (m Model) rightView() string {
	p := m.rightActive()
	if p == PaneDetail {
		if ev := m.splitEvents(); ev > 0 {
			rw := m.width - m.listWidth() - 1
			return m.det.View() + "\n" + m.styles.Faint.Render(strings.Repeat("─", rw)) + "\n" + m.ev.View()
		}
	}
	return m.paneView(p)
}

func (m Model) paneView(p Pane) string {
	switch p {
	case PaneDetail:
		if m.selected == "" {
			return m.styles.Subtle.Render(" No session selected.")
		}
		return m.det.View()
	case PaneEvents:
		return m.ev.View()
	case PaneRequirements:
		return m.req.View()
	case PaneFeedback:
		return m.fb.View()
	}
	return ""
}
