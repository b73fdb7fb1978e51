// Package events is the dashboard's live event tail: the newest entries of
// the event logs (and decisions) for the selected session, or for every
// session, newest at the bottom, following new entries unless scrolled up;
// "/" finds events by their text (prompt, file path, command, error).
package events

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/tui/draw"
	"github.com/dylan-gluck/spcstr/tui/pane"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

// KeyMap is the tail's keys.
type KeyMap struct {
	pane.ScrollKeys
	All key.Binding
	// Decisions toggles showing only gate decisions (warnings and
	// injected context included) and the selected session's custom
	// events.
	Decisions key.Binding
	// Find filters the tail by text; AcceptFind and ClearFind end it.
	Find, AcceptFind, ClearFind key.Binding
	// Open shows the event under the cursor in full (OpenMsg).
	Open key.Binding
}

// OpenMsg asks the root to show an event in full.
type OpenMsg struct{ Event store.Event }

// Help texts of the Decisions binding, by what a press switches to.
const (
	helpDecisionsOnly = "decisions only"
	helpAllEvents     = "all events"
)

// DefaultKeyMap returns the tail's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		ScrollKeys: pane.ScrollKeys{
			Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous event")),
			Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next event")),
			PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
			PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "space"), key.WithHelp("pgdn", "page down")),
			Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "oldest")),
			Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "newest (follow)")),
		},
		Open:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open the event in full")),
		All:        key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "all sessions / selected")),
		Decisions:  key.NewBinding(key.WithKeys("d"), key.WithHelp("d", helpDecisionsOnly)),
		Find:       key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "find events")),
		AcceptFind: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep the search")),
		ClearFind:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear the search")),
	}
}

// ShortHelp implements help.KeyMap.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.All, k.Decisions, k.Find, k.Bottom}
}

// FullHelp implements help.KeyMap.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{append(k.Bindings(), k.Open, k.All, k.Decisions, k.Find, k.AcceptFind, k.ClearFind)}
}

// Model is the event tail pane.
type Model struct {
	Keys   KeyMap
	styles *theme.Styles
	vp     viewport.Model
	evs    []store.Event
	all    bool
	// decisions shows only gate decisions (Event "Decision") and the
	// custom events of customFor (Event "Custom").
	decisions bool
	custom    []store.Event
	customFor string
	session   string
	width     int
	height    int
	// find is the search typed after "/" (editing while it is typed);
	// shown and total count the events it keeps and those it searched.
	find         string
	editing      bool
	shown, total int
	// list is the events shown, as read (oldest first); cur is the one
	// under the cursor (the newest while following).
	list    []store.Event
	cur     int
	focused bool
}

// SetFocused says whether the tail receives keys (its cursor shows).
func (m *Model) SetFocused(f bool) {
	if m.focused != f {
		m.focused = f
		m.render()
	}
}

// Following reports whether the cursor is on the newest event (new ones
// move it).
func (m *Model) Following() bool { return m.cur >= len(m.list)-1 }

// Selected returns the event under the cursor.
func (m *Model) Selected() (store.Event, bool) {
	if m.cur < 0 || m.cur >= len(m.list) {
		return store.Event{}, false
	}
	return m.list[m.cur], true
}

var (
	_ pane.Component = (*Model)(nil)
	_ pane.Scroller  = (*Model)(nil)
)

// New returns an empty tail.
func New(st *theme.Styles) *Model {
	vp := viewport.New()
	vp.KeyMap = viewport.KeyMap{}
	vp.MouseWheelEnabled = false
	return &Model{Keys: DefaultKeyMap(), styles: st, vp: vp}
}

// ShortHelp implements help.KeyMap: the search's keys while it is typed.
func (m *Model) ShortHelp() []key.Binding {
	if m.editing {
		return []key.Binding{m.Keys.AcceptFind, m.Keys.ClearFind}
	}
	return m.Keys.ShortHelp()
}

// Editing reports whether a search is being typed (every key goes to it).
func (m *Model) Editing() bool { return m.editing }

// Find returns the search text ("" when none).
func (m *Model) Find() string { return m.find }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return m.Keys.FullHelp() }

// SetStyles replaces the styles.
func (m *Model) SetStyles(st *theme.Styles) { m.styles = st; m.render() }

// SetSize sets the pane's size; the first line is the title.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.vp.SetWidth(w)
	m.fit()
	m.render()
}

// fit sizes the viewport: the pane less its title and, while there is a
// search, its line.
func (m *Model) fit() {
	h := m.height - 1
	if m.editing || m.find != "" {
		h--
	}
	m.vp.SetHeight(max(h, 0))
}

// All reports whether every session's events are shown.
func (m *Model) All() bool { return m.all }

// FailedOpen counts the gate decisions among the events shown that failed
// open (a gate could not decide and let the action through).
func (m *Model) FailedOpen() int {
	n := 0
	for _, e := range m.evs {
		if e.FailedOpen {
			n++
		}
	}
	return n
}

// DecisionsOnly reports whether only gate decisions are shown.
func (m *Model) DecisionsOnly() bool { return m.decisions }

// SetEvents replaces the events shown (oldest first) for session ("" with
// all). The view stays at the bottom when it was there.
func (m *Model) SetEvents(session string, evs []store.Event) {
	m.session, m.evs = session, evs
	m.render()
}

// SetCustom replaces the custom observability events of session id shown
// with the decisions (oldest first).
func (m *Model) SetCustom(id string, evs []store.Event) {
	m.customFor, m.custom = id, evs
	if m.decisions {
		m.render()
	}
}

// ScrollKeys implements pane.Scroller.
func (m *Model) ScrollKeys() pane.ScrollKeys { return m.Keys.ScrollKeys }

// Scroll implements pane.Scroller: it moves the cursor, and the view with
// it.
func (m *Model) Scroll(mv pane.Move) {
	m.cur = mv.Apply(m.cur, len(m.list), m.vp.Height())
	m.render()
}

func (m *Model) render() {
	follow := m.Following()
	evs, empty := m.evs, " No events in the log tails yet."
	if m.decisions {
		evs, empty = Decisions(m.evs), " No gate decisions in the log tails yet."
		if m.customFor != "" && (m.all || m.customFor == m.session) {
			evs = append(evs, m.custom...)
			store.SortEvents(evs)
		}
		// The title says these are decisions: lead with the source
		// (red for deny/block), then decision, hook and reason.
		for i := range evs {
			evs[i].Event, evs[i].Tool = evs[i].Tool, ""
		}
	}
	m.total = len(evs)
	if f := strings.ToLower(strings.TrimSpace(m.find)); f != "" {
		evs = Find(evs, f)
		empty = " No event matches the search."
	}
	m.shown = len(evs)
	m.list = m.list[:0]
	for _, e := range evs {
		if m.decisions {
			// As read: a decision carries its record, a custom event
			// none.
			orig := "Decision"
			if e.Gate == nil {
				orig = "Custom"
			}
			e.Event, e.Tool = orig, e.Event
		}
		m.list = append(m.list, e)
	}
	if follow {
		m.cur = len(m.list) - 1
	}
	m.cur = min(max(m.cur, 0), max(len(m.list)-1, 0))
	var lines []string
	if len(evs) == 0 {
		lines = []string{m.styles.Faint.Render(empty)}
	} else {
		lines = draw.EventLines(m.styles, evs, m.width, m.all)
		if m.focused {
			lines[m.cur] = m.styles.Selected.Render(lines[m.cur])
		}
	}
	m.vp.SetContent(strings.Join(lines, "\n"))
	// Keep the cursor in view.
	h := max(m.vp.Height(), 1)
	switch {
	case m.cur < m.vp.YOffset():
		m.vp.SetYOffset(m.cur)
	case m.cur >= m.vp.YOffset()+h:
		m.vp.SetYOffset(m.cur - h + 1)
	}
	if follow {
		m.vp.GotoBottom()
	}
}

// Update handles the tail's keys. The root reads All() after a key to
// give the tail every session's events or the selected one's.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	if m.editing {
		m.typeFind(k)
		return nil
	}
	if mv, ok := m.Keys.Match(k); ok {
		m.Scroll(mv)
		return nil
	}
	switch {
	case key.Matches(k, m.Keys.Open):
		if e, ok := m.Selected(); ok {
			return func() tea.Msg { return OpenMsg{Event: e} }
		}
	case key.Matches(k, m.Keys.Find):
		m.editing = true
		m.fit()
	case key.Matches(k, m.Keys.ClearFind) && m.find != "":
		m.find = ""
		m.fit()
		m.cur = len(m.list) // follow again
		m.render()
	case key.Matches(k, m.Keys.All):
		m.all = !m.all
	case key.Matches(k, m.Keys.Decisions):
		m.decisions = !m.decisions
		h := helpDecisionsOnly
		if m.decisions {
			h = helpAllEvents
		}
		m.Keys.Decisions.SetHelp("d", h)
		m.cur = len(m.list) // follow again
		m.render()
	}
	return nil
}

// typeFind applies a key to the search being typed.
func (m *Model) typeFind(k tea.KeyPressMsg) {
	switch {
	case key.Matches(k, m.Keys.ClearFind):
		m.editing, m.find = false, ""
	case key.Matches(k, m.Keys.AcceptFind):
		m.editing = false
	case k.String() == "backspace":
		if r := []rune(m.find); len(r) > 0 {
			m.find = string(r[:len(r)-1])
		}
	case k.String() == "ctrl+u":
		m.find = ""
	case k.Text != "" && k.Mod&^tea.ModShift == 0:
		m.find += text.Sanitize(k.Text)
	case k.String() == "space":
		m.find += " "
	default:
		return
	}
	m.fit()
	m.cur = len(m.list) // follow again
	m.render()
}

// Find returns the events whose text holds f (lower case): the prompt,
// path, command or reason they show, their error, tool, event name or
// agent.
func Find(evs []store.Event, f string) []store.Event {
	var out []store.Event
	for _, e := range evs {
		for _, s := range []string{e.Detail, e.Error, e.Tool, e.Event, e.Agent} {
			if strings.Contains(strings.ToLower(s), f) {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// Decisions returns a copy of the gate decisions among evs (Event
// "Decision"), in order.
func Decisions(evs []store.Event) []store.Event {
	var out []store.Event
	for _, e := range evs {
		if e.Event == "Decision" {
			out = append(out, e)
		}
	}
	return out
}

// View draws the tail with a title line.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	title := "Events · " + text.ShortID(m.session)
	if m.all {
		title = "Events · all sessions"
	}
	if m.decisions {
		title = "Decisions" + strings.TrimPrefix(title, "Events")
	}
	follow := m.styles.Faint.Render(" following")
	if !m.Following() {
		follow = m.styles.Warn.Render(" paused (G follows)")
	}
	if m.find != "" && !m.editing {
		matches := itoa(m.shown) + " matches"
		if m.shown == 1 {
			matches = "1 match"
		}
		title += " · " + matches + " of " + itoa(m.total)
	}
	head := text.Right(m.styles.Section.Render(title), follow, m.width)
	if m.height == 1 {
		return head
	}
	out := head + "\n" + m.vp.View()
	if m.editing || m.find != "" {
		f := m.styles.Filter.Render("/") + m.find
		if m.editing {
			f += m.styles.Cursor.Render("█")
		} else {
			f += m.styles.Faint.Render("  (esc clears)")
		}
		out += "\n" + text.Fit(f, m.width)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
