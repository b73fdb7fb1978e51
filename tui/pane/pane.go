// Package pane defines what every pane of the dashboard is, in one place:
// a Component (sized, styled, updated with the keys it receives, drawn,
// and carrying its own keys for the footer and the help overlay) and,
// for panes whose content can be longer than they are, a Scroller, which
// the root drives with the scrolling keys and the mouse wheel so that they
// work the same in every pane.
package pane

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/tui/theme"
)

// Component is one pane. The root sends it the keys it does not handle
// itself (global keys first), builds the footer from ShortHelp and the
// help overlay from FullHelp.
type Component interface {
	help.KeyMap
	// SetSize sets the pane's size in cells.
	SetSize(width, height int)
	// SetStyles replaces the styles (the background color was learned).
	SetStyles(st *theme.Styles)
	// Update handles a message sent to the pane (a key while focused).
	Update(msg tea.Msg) tea.Cmd
	// View draws the pane at its size.
	View() string
}

// Scroller is a pane whose content scrolls (or whose cursor moves through
// rows). The root applies its ScrollKeys before Update sees a key, and
// scrolls the pane under the mouse wheel.
type Scroller interface {
	Scroll(mv Move)
	ScrollKeys() ScrollKeys
}

// Move is one scrolling step: a number of lines (or rows) and of pages,
// or to the top or the bottom.
type Move struct {
	Lines, Pages int
	Top, Bottom  bool
}

// ScrollKeys is the scrolling bindings every Scroller has.
type ScrollKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
}

// DefaultScrollKeys returns the bindings; top and bottom are the help texts
// of home/g and end/G (a log calls them "oldest" and "newest").
func DefaultScrollKeys(top, bottom string) ScrollKeys {
	return ScrollKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "space"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", top)),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", bottom)),
	}
}

// Bindings lists the bindings in help order.
func (k ScrollKeys) Bindings() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
}

// Match returns the Move a key asks for, if it is a scrolling key.
func (k ScrollKeys) Match(msg tea.KeyPressMsg) (Move, bool) {
	switch {
	case key.Matches(msg, k.Up):
		return Move{Lines: -1}, true
	case key.Matches(msg, k.Down):
		return Move{Lines: 1}, true
	case key.Matches(msg, k.PageUp):
		return Move{Pages: -1}, true
	case key.Matches(msg, k.PageDown):
		return Move{Pages: 1}, true
	case key.Matches(msg, k.Top):
		return Move{Top: true}, true
	case key.Matches(msg, k.Bottom):
		return Move{Bottom: true}, true
	}
	return Move{}, false
}

// Apply moves n, a position within total rows of which page are shown at
// once, and returns the new position (within [0, total-1]).
func (mv Move) Apply(n, total, page int) int {
	switch {
	case mv.Top:
		n = 0
	case mv.Bottom:
		n = total - 1
	default:
		n += mv.Lines + mv.Pages*max(page, 1)
	}
	return min(max(n, 0), max(total-1, 0))
}

// ScrollViewport applies mv to a viewport.
func ScrollViewport(vp *viewport.Model, mv Move) {
	switch {
	case mv.Top:
		vp.GotoTop()
	case mv.Bottom:
		vp.GotoBottom()
	case mv.Pages < 0:
		vp.PageUp()
	case mv.Pages > 0:
		vp.PageDown()
	case mv.Lines < 0:
		vp.ScrollUp(-mv.Lines)
	case mv.Lines > 0:
		vp.ScrollDown(mv.Lines)
	}
}
