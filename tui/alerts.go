package tui

import (
	"github.com/dylan-gluck/spcstr/tui/notify"
	"github.com/dylan-gluck/spcstr/tui/sessions"
	"github.com/dylan-gluck/spcstr/tui/store"
)

// Needs-input alerts: the sessions list sorts and highlights a session that
// waits for the user, the header counts them, and the bell (Options.Bell
// or dashboard.bell) rings once when one starts waiting.

// bell is the terminal bell (BEL).
const bell = "\a"

// watchAsking notes which sessions wait for the user, and asks for the
// bell when one that was seen doing something else starts waiting. A
// session's first sighting never rings (one already waiting when the
// dashboard opens is not news), and nothing is noted before the registry
// is read: until then every session looks stale.
func (m *Model) watchAsking(rows []sessions.Row) {
	if _, ok := m.st.Registry(); !ok {
		return
	}
	seen := make([]notify.Row, 0, len(rows))
	defer func() { m.pending = append(m.pending, m.tracker.Observe("", seen, m.now())...) }()
	for _, r := range rows {
		if !r.Loaded {
			continue // not read yet: its status is unknown, not changed
		}
		seen = append(seen, notify.Row{ID: r.ID, Title: r.Title, Display: r.Display, Asks: r.Asks})
		asks := store.NeedsYou(r.Display)
		if was, seen := m.asking[r.ID]; seen && asks && !was {
			m.ring = true
		}
		m.asking[r.ID] = asks
	}
}
