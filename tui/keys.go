package tui

import "charm.land/bubbles/v2/key"

// KeyMap is the dashboard's global keys, matched before the focused
// pane's; each pane has its own as well (pane.Component).
type KeyMap struct {
	Quit, Help, NextPane, PrevPane, Back key.Binding
	Pane1, Pane2, Pane3, Pane4, Pane5    key.Binding
	Follow, PrevSession, NextSession     key.Binding
	NextNeeding                          key.Binding
	// Timeline opens the sessions over time.
	Timeline key.Binding
	// Focus brings the selected session's terminal pane to the front.
	Focus key.Binding
	// CloseHelp closes the help overlay (q there closes it, not the
	// program; ctrl+c still quits).
	CloseHelp key.Binding
}

// DefaultKeyMap returns the global bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Quit:        key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Help:        key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys")),
		NextPane:    key.NewBinding(key.WithKeys("tab", "right", "l"), key.WithHelp("tab/→", "next pane")),
		PrevPane:    key.NewBinding(key.WithKeys("shift+tab", "left", "h"), key.WithHelp("S-tab/←", "previous pane")),
		Back:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to sessions")),
		Pane1:       key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "sessions")),
		Pane2:       key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "session detail")),
		Pane3:       key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "event tail")),
		Pane4:       key.NewBinding(key.WithKeys("4"), key.WithHelp("4", "requirements")),
		Pane5:       key.NewBinding(key.WithKeys("5"), key.WithHelp("5", "feedback loop")),
		Follow:      key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow: the session that needs you, else the newest")),
		NextNeeding: key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "next session that needs you")),
		PrevSession: key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous session")),
		NextSession: key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next session")),
		Timeline:    key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "timeline of the sessions")),
		Focus:       key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "go to the session's pane")),
		CloseHelp:   key.NewBinding(key.WithKeys("q", "esc", "?"), key.WithHelp("q/esc", "close help")),
	}
}
