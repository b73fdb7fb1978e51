// Package projlist is the pane of spcstr tui --all: every recorded project
// on the machine, grouped, each with its live and most recent sessions.
// Enter asks the program to open the project under the cursor (OpenMsg).
// It only draws what it is given (Group); reading the projects is done in
// the tui package's commands.
package projlist

import (
	"cmp"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/tui/draw"
	"github.com/dylan-gluck/spcstr/tui/pane"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

// Session is one session row under its project.
type Session struct {
	store.Summary
	// Display is the status shown (store.DisplayStatus).
	Display string
}

// Group is one project and the sessions shown under it.
type Group struct {
	// Path is the project root; Name its folder's name (both sanitised
	// by whoever builds the group).
	Path, Name string
	// Sessions are the live and most recent sessions, live first.
	Sessions []Session
	// Live counts the project's live sessions; Total all its sessions.
	Live, Total int
	// LastAt is the newest session's last activity.
	LastAt time.Time
	// Today and All are what the project's sessions cost: those active
	// today, and every one (docs/cost.md).
	Today, All pricing.Total
}

// Totals sums every project's cost: today's and in all.
func (m *Model) Totals() (today, all pricing.Total) {
	for _, g := range m.groups {
		today.Merge(g.Today)
		all.Merge(g.All)
	}
	return today, all
}

// OpenMsg asks to open a project's dashboard.
type OpenMsg struct{ Path string }

// KeyMap is the pane's keys.
type KeyMap struct {
	Open key.Binding
	pane.ScrollKeys
}

// DefaultKeyMap returns the pane's bindings.
func DefaultKeyMap() KeyMap {
	sk := pane.DefaultScrollKeys("first project", "last project")
	sk.Up.SetHelp("↑/k", "previous project")
	sk.Down.SetHelp("↓/j", "next project")
	return KeyMap{
		Open:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open project")),
		ScrollKeys: sk,
	}
}

// Model is the projects pane.
type Model struct {
	Keys   KeyMap
	styles *theme.Styles
	now    func() time.Time
	home   string
	groups []Group
	cursor int
	offset int // first line shown
	loaded bool
	// want is a project Select asked for before the list was read.
	want   string
	width  int
	height int
}

// New returns an empty pane; home (may be "") is shown as ~ in paths.
func New(st *theme.Styles, now func() time.Time, home string) *Model {
	if now == nil {
		now = time.Now
	}
	return &Model{Keys: DefaultKeyMap(), styles: st, now: now, home: home}
}

// ShortHelp is the footer's keys.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.Keys.Down, m.Keys.Open}
}

// FullHelp is the help overlay's keys.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{append([]key.Binding{m.Keys.Open}, m.Keys.ScrollKeys.Bindings()...)}
}

// SetSize sets the pane's size.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h; m.clamp() }

// SetStyles replaces the styles.
func (m *Model) SetStyles(st *theme.Styles) { m.styles = st }

// Loaded reports whether the projects have been read (SetGroups).
func (m *Model) Loaded() bool { return m.loaded }

// SetGroups replaces the projects, keeping the cursor on the same project
// when it is still listed.
func (m *Model) SetGroups(groups []Group) {
	cur := m.Selected()
	if m.want != "" { // asked for before the projects were read
		cur = m.want
	}
	m.groups, m.loaded = groups, true
	m.Select(cur)
	m.clamp()
}

// Len returns the number of projects.
func (m *Model) Len() int { return len(m.groups) }

// Selected returns the path of the project under the cursor ("" if none).
func (m *Model) Selected() string {
	if m.cursor < len(m.groups) {
		return m.groups[m.cursor].Path
	}
	return ""
}

// Select moves the cursor to the project at path, if listed.
func (m *Model) Select(path string) {
	m.want = ""
	for i, g := range m.groups {
		if g.Path == path {
			m.cursor = i
			return
		}
	}
	if !m.loaded {
		m.want = path // the next SetGroups selects it
	}
	m.cursor = min(m.cursor, max(len(m.groups)-1, 0))
}

// ScrollKeys returns the scrolling keys (they move the cursor).
func (m *Model) ScrollKeys() pane.ScrollKeys { return m.Keys.ScrollKeys }

// Scroll moves the cursor.
func (m *Model) Scroll(mv pane.Move) {
	switch {
	case mv.Top:
		m.cursor = 0
	case mv.Bottom:
		m.cursor = len(m.groups) - 1
	default:
		m.cursor += mv.Lines + mv.Pages*max(m.height/4, 1)
	}
	m.clamp()
}

// Update handles a key: the scrolling keys move the cursor, enter opens.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	if mv, ok := m.Keys.ScrollKeys.Match(k); ok {
		m.Scroll(mv)
		return nil
	}
	if key.Matches(k, m.Keys.Open) && m.Selected() != "" {
		path := m.Selected()
		return func() tea.Msg { return OpenMsg{Path: path} }
	}
	return nil
}

// groupLines draws one project: its header line and one line a session.
func (m *Model) groupLines(g Group, sel bool, now time.Time) []string {
	st, w := m.styles, m.width
	mark := "  "
	if sel {
		mark = st.Cursor.Render("▌ ")
	}
	count := strconv.Itoa(g.Total) + " session"
	if g.Total != 1 {
		count += "s"
	}
	if g.Live > 0 {
		count = st.Working.Render(strconv.Itoa(g.Live)+" live") + st.Subtle.Render(" · "+count)
	} else {
		count = st.Subtle.Render(count)
	}
	if g.All.Any && w >= 80 {
		count = st.Subtle.Render("today "+g.Today.String()+" · all "+g.All.String()+" · ") + count
	}
	head := mark + st.Bold.Render(g.Name) + " " + st.Faint.Render(m.short(g.Path))
	line := text.Right(head, " "+count, w)
	if sel {
		line = st.Selected.Render(text.Fit(line, w))
	}
	lines := []string{text.Fit(line, w)}
	if len(g.Sessions) == 0 {
		lines = append(lines, text.Fit(st.Faint.Render("    no sessions yet"), w))
	}
	for _, s := range g.Sessions {
		sym, label := draw.Symbol(s.Display)
		paint := draw.StatusStyle(st, s.Display)
		left := "    " + paint(sym) + " " + text.ShortID(s.ID) + " " + paint(label)
		if s.Branch != "" {
			left += " " + st.Info.Render(s.Branch)
		}
		if label := cmp.Or(s.Title, s.LastPrompt); label != "" {
			left += " " + st.Subtle.Render(label)
		}
		lines = append(lines, text.Fit(text.Right(text.Trunc(left, max(w-6, 1)), st.Subtle.Render(" "+text.Age(now, s.LastAt)), w), w))
	}
	return lines
}

// short writes path with the home folder as ~.
func (m *Model) short(path string) string {
	if m.home != "" {
		if rel, err := filepath.Rel(m.home, path); err == nil && !strings.HasPrefix(rel, "..") {
			if rel == "." {
				return "~"
			}
			return "~" + string(filepath.Separator) + rel
		}
	}
	return path
}

// View draws the projects at the pane's size, the cursor's project kept in
// view.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	st := m.styles
	now := m.now()
	var lines []string
	start, end := 0, 0
	switch {
	case !m.loaded:
		lines = append(lines, st.Subtle.Render(" Reading the projects…"))
	case len(m.groups) == 0:
		lines = append(lines,
			st.Subtle.Render(" No recorded project on this machine yet."),
			st.Faint.Render(" Run spcstr init in a project; it is listed"),
			st.Faint.Render(" here from then on, and from its next session."))
	}
	for i, g := range m.groups {
		if i == m.cursor {
			start = len(lines)
		}
		lines = append(lines, m.groupLines(g, i == m.cursor, now)...)
		if i == m.cursor {
			end = len(lines)
		}
	}
	// Keep the cursor's project in view.
	if start < m.offset {
		m.offset = start
	}
	if end > m.offset+h {
		m.offset = min(end-h, start)
	}
	m.offset = max(min(m.offset, len(lines)-h), 0)
	return draw.Window(lines, m.offset, w, h)
}

func (m *Model) clamp() {
	m.cursor = max(min(m.cursor, len(m.groups)-1), 0)
}
