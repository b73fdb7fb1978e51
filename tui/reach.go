package tui

import (
	"sort"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/tui/events"
	"github.com/dylan-gluck/spcstr/tui/timeline"
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
			m.entry.SetAnswer(msg.answer)
			m.entry.SetRaw(msg.raw, msg.ok)
		}
	case focusDoneMsg:
		if msg.err != nil {
			m.flash(msg.err.Error())
		} else {
			m.flash("went to " + msg.did)
		}
	case timelineMsg:
		m.tl.SetLanes(msg.lanes, msg.since)
	case timeline.ReloadMsg:
		return m.readTimeline()
	case notifyRawMsg:
		return tea.Raw(msg.seq)
	case notifyErrMsg:
		m.flash(msg.err.Error())
	}
	return nil
}

// timelineLanes is how many sessions the timeline reads: the selected one
// and the most recently active others.
const timelineLanes = 8

// openTimeline shows the timeline and reads its lanes.
func (m *Model) openTimeline() tea.Cmd {
	m.showTimeline = true
	// Fitted to the selected session: from its start to its last event.
	var from, to time.Time
	if sum, ok := m.st.Summary(m.selected); ok {
		from, to = sum.CreatedAt, sum.LastAt
	}
	m.tl.Open(m.selected, from, to)
	m.tl.SetSize(m.width, m.bodyHeight()+1)
	return m.readTimeline()
}

// readTimeline reads the timeline's lanes for its window.
func (m *Model) readTimeline() tea.Cmd {
	since := m.tl.Since()
	var ids, titles []string
	if m.selected != "" {
		sum, _ := m.st.Summary(m.selected)
		ids, titles = append(ids, m.selected), append(titles, sum.Title)
	}
	sums := m.st.Summaries()
	sort.SliceStable(sums, func(i, j int) bool { return sums[i].LastAt.After(sums[j].LastAt) })
	for _, s := range sums {
		if len(ids) >= timelineLanes {
			break
		}
		if s.ID != m.selected && s.LastAt.After(since) {
			ids, titles = append(ids, s.ID), append(titles, s.Title)
		}
	}
	return timelineCmd(m.opt.Layout, ids, titles, since)
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
