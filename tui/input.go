package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/tui/pane"
)

// quit ends the program; with Options.Back, q (not ctrl+c) goes back to
// the projects of spcstr tui --all.
func (m Model) quit(k tea.KeyPressMsg) tea.Cmd {
	if m.opt.Back && k.String() == "q" {
		m.shared.mu.Lock()
		m.shared.back = true
		m.shared.mu.Unlock()
	}
	return tea.Quit
}

// handleKey routes a key: help first, then the filter being typed, then
// global keys, then the focused pane.
func (m Model) handleKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if m.showHelp {
		switch {
		case key.Matches(k, m.keys.Quit) && k.String() == "ctrl+c":
			return m, tea.Quit
		case k.String() == "up" || k.String() == "k":
			m.helpOffset = max(m.helpOffset-1, 0)
		case k.String() == "down" || k.String() == "j":
			m.helpOffset++
		case k.String() == "pgdown" || k.String() == "space":
			m.helpOffset += max(m.bodyHeight()-1, 1)
		case k.String() == "pgup":
			m.helpOffset = max(m.helpOffset-m.bodyHeight()+1, 0)
		case k.String() == "home" || k.String() == "g":
			m.helpOffset = 0
		case k.String() == "end" || k.String() == "G":
			m.helpOffset = len(m.helpLines())
		case key.Matches(k, m.keys.CloseHelp):
			m.showHelp = false
		}
		m.helpOffset = min(m.helpOffset, max(len(m.helpLines())-m.bodyHeight(), 0))
		return m, nil
	}
	if m.showEntry {
		switch {
		case k.String() == "ctrl+c":
			return m, tea.Quit
		case key.Matches(k, m.entry.Keys.Close):
			m.showEntry = false
		default:
			return m, m.entry.Update(k)
		}
		return m, nil
	}
	if m.showTimeline {
		switch {
		case k.String() == "ctrl+c":
			return m, tea.Quit
		case key.Matches(k, m.tl.Keys.Close):
			m.showTimeline = false
		default:
			return m, m.tl.Update(k)
		}
		return m, nil
	}
	if m.confirm != nil {
		return m.confirmKey(k)
	}
	if m.focus == PaneSessions && m.list.Editing() {
		if k.String() == "ctrl+c" {
			return m, tea.Quit
		}
		before := m.list.Filter()
		cmd := m.list.Update(k)
		m.follow = false
		return m, tea.Batch(append(m.selectionChanged(), cmd, m.filterChanged(before))...)
	}
	// The events search: typed keys, and esc while one is set, are its.
	if m.focus == PaneEvents && (m.ev.Editing() || m.ev.Find() != "" && key.Matches(k, m.ev.Keys.ClearFind)) {
		if k.String() == "ctrl+c" {
			return m, tea.Quit
		}
		return m, m.ev.Update(k)
	}
	switch {
	case key.Matches(k, m.keys.Quit):
		return m, m.quit(k)
	case key.Matches(k, m.keys.Help):
		m.showHelp, m.helpOffset = true, 0
		return m, nil
	case key.Matches(k, m.keys.Timeline):
		return m, m.openTimeline()
	case key.Matches(k, m.keys.Focus):
		if m.selected == "" {
			m.flash("no session selected")
			return m, nil
		}
		return m, focusCmd(m.ctx, m.opt.Layout, m.selected)
	case key.Matches(k, m.keys.Follow):
		m.follow = !m.follow
		if m.follow {
			m.list.SelectNewest()
			m.flash("following the newest session")
		} else {
			m.flash("follow off")
		}
		return m, tea.Batch(m.selectionChanged()...)
	case key.Matches(k, m.keys.PrevSession), key.Matches(k, m.keys.NextSession):
		d := 1
		if key.Matches(k, m.keys.PrevSession) {
			d = -1
		}
		m.list.Move(d)
		m.follow = false
		return m, tea.Batch(m.selectionChanged()...)
	case key.Matches(k, m.keys.Pane1):
		m.setFocus(PaneSessions)
		return m, nil
	case key.Matches(k, m.keys.Pane2):
		m.setFocus(PaneDetail)
		return m, nil
	case key.Matches(k, m.keys.Pane3):
		m.setFocus(PaneEvents)
		return m, nil
	case key.Matches(k, m.keys.Pane4):
		m.setFocus(PaneRequirements)
		return m, nil
	case key.Matches(k, m.keys.Pane5):
		m.setFocus(PaneFeedback)
		return m, nil
	case key.Matches(k, m.keys.NextPane):
		m.setFocus((m.focus + 1) % paneCount)
		return m, nil
	case key.Matches(k, m.keys.PrevPane):
		m.setFocus((m.focus + paneCount - 1) % paneCount)
		return m, nil
	case key.Matches(k, m.list.Keys.Open) && m.focus == PaneSessions:
		m.setFocus(PaneDetail)
		return m, nil
	case key.Matches(k, m.keys.Back) && m.focus != PaneSessions:
		m.setFocus(PaneSessions)
		return m, nil
	}
	// The focused pane: the sessions list may change the selection, the
	// event tail may switch between the selected session and all.
	before, all, decisions, order := m.currentID(), m.ev.All(), m.ev.DecisionsOnly(), m.list.Order()
	cmd := m.pane(m.focus).Update(k)
	switch m.focus {
	case PaneSessions:
		if m.list.Order() != order {
			m.flash("sorted: " + m.list.Order().String())
			if m.follow {
				m.list.SelectNewest()
			}
		}
		if m.currentID() != before || m.list.Editing() {
			m.follow = false
		}
		return m, tea.Batch(append(m.selectionChanged(), cmd)...)
	case PaneEvents:
		if m.ev.All() != all {
			m.showEvents()
		}
		if m.ev.DecisionsOnly() && !decisions {
			return m, tea.Batch(cmd, m.loadCustom())
		}
	}
	return m, cmd
}

func (m *Model) setFocus(p Pane) {
	m.focus = p
	if p != PaneSessions {
		m.right = p
	}
	m.list.SetFocused(p == PaneSessions)
	m.ev.SetFocused(p == PaneEvents)
	m.layout()
}

func (m Model) handleWheel(msg tea.MouseWheelMsg) (tea.Model, tea.Cmd) {
	mo := msg.Mouse()
	d := 0
	switch mo.Button {
	case tea.MouseWheelUp:
		d = -1
	case tea.MouseWheelDown:
		d = 1
	default:
		return m, nil
	}
	if m.showHelp {
		m.helpOffset = max(m.helpOffset+d*3, 0)
		return m, nil
	}
	if m.showEntry {
		m.entry.Scroll(pane.Move{Lines: d * 3})
		return m, nil
	}
	target := m.focus
	if m.wide() {
		if mo.X < m.listWidth() {
			target = PaneSessions
		} else {
			target = m.right
		}
	}
	if target == PaneSessions {
		m.list.Move(d)
		m.follow = false
		return m, tea.Batch(m.selectionChanged()...)
	}
	// The wheel scrolls three lines, or one row of requirements.
	step := 3
	if target == PaneRequirements {
		step = 1
	}
	if sc, ok := m.pane(target).(pane.Scroller); ok {
		sc.Scroll(pane.Move{Lines: d * step})
	}
	return m, nil
}

func (m Model) handleClick(msg tea.MouseClickMsg) (tea.Model, tea.Cmd) {
	mo := msg.Mouse()
	if mo.Button != tea.MouseLeft || m.showHelp {
		return m, nil
	}
	top := 2 // header and tab lines
	if mo.Y == 1 {
		// a tab
		if p, ok := m.tabAt(mo.X); ok {
			m.setFocus(p)
		}
		return m, nil
	}
	inList := m.focus == PaneSessions || m.wide() && mo.X < m.listWidth()
	if inList && m.list.ClickRow(mo.Y-top) {
		m.follow = false
		m.setFocus(PaneSessions)
		return m, tea.Batch(m.selectionChanged()...)
	}
	if m.wide() && mo.X >= m.listWidth() {
		m.setFocus(m.right)
	}
	return m, nil
}
