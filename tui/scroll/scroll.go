// Package scroll owns the dashboard's scrolling keys: the bindings every
// pane that shows a viewport shares (line, page, top, bottom), and applying
// them to the viewport, so that the panes agree on them.
package scroll

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
)

// KeyMap is the scrolling bindings.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
}

// DefaultKeyMap returns the bindings; top and bottom are the help texts of
// home/g and end/G (a log calls them "oldest" and "newest").
func DefaultKeyMap(top, bottom string) KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "space"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", top)),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", bottom)),
	}
}

// Bindings lists the bindings in help order.
func (k KeyMap) Bindings() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
}

// Handle scrolls vp when msg is one of the bindings and reports whether it
// was.
func (k KeyMap) Handle(vp *viewport.Model, msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, k.Up):
		vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		vp.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		vp.PageUp()
	case key.Matches(msg, k.PageDown):
		vp.PageDown()
	case key.Matches(msg, k.Top):
		vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		vp.GotoBottom()
	default:
		return false
	}
	return true
}
