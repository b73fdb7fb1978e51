package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/tui/events"
)

// What reaches beyond the panes: an event opened in full, o (a session's
// terminal pane brought to the front) and desktop notifications.

// reach handles the messages of the entry view, o and notifications.
func (m *Model) reach(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case events.OpenMsg:
		m.showEntry = true
		m.entry.Open(msg.Event)
		m.entry.SetSize(m.width, m.bodyHeight()+1)
		return entryCmd(m.opt.Layout, msg.Event)
	case entryMsg:
		if m.showEntry && msg.ev == m.entry.Event() {
			m.entry.SetRaw(msg.raw, msg.ok)
		}
	case focusDoneMsg:
		if msg.err != nil {
			m.flash(msg.err.Error())
		} else {
			m.flash("went to " + msg.did)
		}
	case notifyRawMsg:
		return tea.Raw(msg.seq)
	case notifyErrMsg:
		m.flash(msg.err.Error())
	}
	return nil
}

// sendNotices delivers the notices of this update (--notify or
// dashboard.notify), and forgets them either way.
func (m *Model) sendNotices() []tea.Cmd {
	var cmds []tea.Cmd
	if m.opt.Notify || m.cfgNotify {
		for _, n := range m.pending {
			cmds = append(cmds, notifyCmd(m.ctx, m.opt.Layout, n, m.strategies.method, m.strategies.inTmux))
		}
	}
	m.pending = nil
	return cmds
}
