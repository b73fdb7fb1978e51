// Package sessions is the dashboard's sessions pane: every session of the
// project, newest activity first, with its status, branch, age, a sparkline
// of events per minute and a few counts; a filter typed after "/"; and a
// cursor whose session the other panes show.
package sessions

import (
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/tui/chart"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

// Row is one session as the list shows it.
type Row struct {
	store.Summary
	// Display is the status to show (store.Status*), stale included.
	Display string
}

// rowHeight is the number of lines each session takes.
const rowHeight = 2

// KeyMap is the list's key bindings.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Filter, ClearFilter, AcceptFilter       key.Binding
}

// DefaultKeyMap returns the list's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous session")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next session")),
		PageUp:       key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown:     key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Top:          key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "newest session")),
		Bottom:       key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "oldest session")),
		Filter:       key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter sessions")),
		ClearFilter:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
		AcceptFilter: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")),
	}
}

// ShortHelp implements help.KeyMap.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Down, k.Filter} }

// FullHelp implements help.KeyMap.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, {k.Filter, k.AcceptFilter, k.ClearFilter}}
}

// Model is the sessions pane.
type Model struct {
	Keys    KeyMap
	styles  *theme.Styles
	rows    []Row // sorted, all
	visible []int // indexes into rows that pass the filter
	cursor  int   // index into visible
	offset  int   // first visible row drawn
	filter  string
	editing bool
	width   int
	height  int
	focused bool
	empty   []string
}

// SetEmptyText replaces what the list says when there are no sessions (no
// lines: the default).
func (m *Model) SetEmptyText(lines ...string) { m.empty = lines }

// New returns an empty list.
func New(st *theme.Styles) Model {
	return Model{Keys: DefaultKeyMap(), styles: st}
}

// SetStyles replaces the styles (background color learned).
func (m *Model) SetStyles(st *theme.Styles) { m.styles = st }

// SetSize sets the pane's size in cells.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.clamp()
}

// SetFocused tells the list whether it receives keys (shown by its cursor).
func (m *Model) SetFocused(f bool) { m.focused = f }

// Editing reports whether the filter is being typed (keys go to it).
func (m Model) Editing() bool { return m.editing }

// Filter returns the filter text.
func (m Model) Filter() string { return m.filter }

// Len is the number of sessions shown (after the filter) and in total.
func (m Model) Len() (shown, total int) { return len(m.visible), len(m.rows) }

// SetRows replaces the rows, sorted newest activity first, keeping the
// cursor on the same session.
func (m *Model) SetRows(rows []Row) {
	sel, had := m.Selected()
	m.rows = rows
	sort.SliceStable(m.rows, func(i, j int) bool {
		if !m.rows[i].LastAt.Equal(m.rows[j].LastAt) {
			return m.rows[i].LastAt.After(m.rows[j].LastAt)
		}
		return m.rows[i].ID < m.rows[j].ID
	})
	m.refilter()
	if had {
		m.Select(sel.ID)
	}
	m.clamp()
}

// Selected returns the row under the cursor.
func (m Model) Selected() (Row, bool) {
	if m.cursor < 0 || m.cursor >= len(m.visible) {
		return Row{}, false
	}
	return m.rows[m.visible[m.cursor]], true
}

// Select moves the cursor to the session id, when it is shown.
func (m *Model) Select(id string) bool {
	for i, ri := range m.visible {
		if m.rows[ri].ID == id {
			m.cursor = i
			m.clamp()
			return true
		}
	}
	return false
}

// SelectNewest moves the cursor to the most recently started session shown
// (follow mode: it moves when a new session starts, not on every event of
// the sessions already running).
func (m *Model) SelectNewest() {
	best := -1
	var bestAt time.Time
	for i, ri := range m.visible {
		r := m.rows[ri]
		at := r.CreatedAt
		if at.IsZero() {
			at = r.LastAt
		}
		if best < 0 || at.After(bestAt) {
			best, bestAt = i, at
		}
	}
	m.cursor = max(best, 0)
	m.clamp()
}

// Move moves the cursor by n rows.
func (m *Model) Move(n int) {
	m.cursor += n
	m.clamp()
}

// ClickRow selects the row drawn at line y of the pane and reports whether
// there was one.
func (m *Model) ClickRow(y int) bool {
	i := m.offset + y/rowHeight
	if y < 0 || i >= len(m.visible) || y >= m.listHeight() {
		return false
	}
	m.cursor = i
	m.clamp()
	return true
}

func (m *Model) refilter() {
	m.visible = m.visible[:0]
	f := strings.ToLower(strings.TrimSpace(m.filter))
	for i, r := range m.rows {
		if f == "" || matches(r, f) {
			m.visible = append(m.visible, i)
		}
	}
}

func matches(r Row, f string) bool {
	for _, s := range []string{r.ID, r.Display, r.Branch, r.Model, r.Cwd, r.LastPrompt} {
		if strings.Contains(strings.ToLower(s), f) {
			return true
		}
	}
	return false
}

func (m Model) listHeight() int {
	h := m.height
	if m.editing || m.filter != "" {
		h--
	}
	return max(h, 0)
}

func (m *Model) clamp() {
	if m.cursor >= len(m.visible) {
		m.cursor = len(m.visible) - 1
	}
	if m.cursor < 0 {
		m.cursor = 0
	}
	per := max(m.listHeight()/rowHeight, 1)
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+per {
		m.offset = m.cursor - per + 1
	}
	m.offset = max(min(m.offset, len(m.visible)-per), 0)
}

// Update handles keys while the list has focus. moved reports whether the
// selection changed (the root then loads that session).
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return m, nil
	}
	if m.editing {
		switch {
		case key.Matches(k, m.Keys.ClearFilter):
			m.editing, m.filter = false, ""
		case key.Matches(k, m.Keys.AcceptFilter):
			m.editing = false
		case k.String() == "backspace":
			if r := []rune(m.filter); len(r) > 0 {
				m.filter = string(r[:len(r)-1])
			}
		case k.String() == "ctrl+u":
			m.filter = ""
		case k.Text != "" && k.Mod&^tea.ModShift == 0:
			m.filter += text.Sanitize(k.Text)
		case k.String() == "space":
			m.filter += " "
		default:
			return m, nil
		}
		m.refilter()
		m.cursor = 0
		m.clamp()
		return m, nil
	}
	per := max(m.listHeight()/rowHeight, 1)
	switch {
	case key.Matches(k, m.Keys.Up):
		m.Move(-1)
	case key.Matches(k, m.Keys.Down):
		m.Move(1)
	case key.Matches(k, m.Keys.PageUp):
		m.Move(-per)
	case key.Matches(k, m.Keys.PageDown):
		m.Move(per)
	case key.Matches(k, m.Keys.Top):
		m.cursor = 0
		m.clamp()
	case key.Matches(k, m.Keys.Bottom):
		m.cursor = len(m.visible) - 1
		m.clamp()
	case key.Matches(k, m.Keys.Filter):
		m.editing = true
		m.clamp()
	case key.Matches(k, m.Keys.ClearFilter) && m.filter != "":
		m.filter = ""
		m.refilter()
		m.clamp()
	}
	return m, nil
}

// View draws the list at its size. now dates the ages and sparklines.
func (m Model) View(now time.Time) string {
	st := m.styles
	w := m.width
	if w <= 0 || m.height <= 0 {
		return ""
	}
	var lines []string
	if len(m.rows) == 0 {
		empty := m.empty
		if len(empty) == 0 {
			empty = []string{"No sessions yet.", "They appear here as Claude Code", "sends hook events."}
		}
		for i, l := range empty {
			if i == 0 {
				lines = append(lines, text.Fit(st.Subtle.Render(" "+l), w))
			} else {
				lines = append(lines, text.Fit(st.Faint.Render(" "+l), w))
			}
		}
	} else if len(m.visible) == 0 {
		lines = append(lines, text.Fit(st.Subtle.Render(" No session matches the filter."), w))
	}
	per := max(m.listHeight()/rowHeight, 1)
	nowMin := now.Unix() / 60
	for i := m.offset; i < len(m.visible) && i < m.offset+per; i++ {
		r := m.rows[m.visible[i]]
		sel := i == m.cursor
		lines = append(lines, m.rowLines(r, sel, now, nowMin)...)
	}
	for len(lines) < m.listHeight() {
		lines = append(lines, strings.Repeat(" ", w))
	}
	lines = lines[:m.listHeight()]
	if m.editing || m.filter != "" {
		f := st.Filter.Render("/") + m.filter
		if m.editing {
			f += st.Cursor.Render("█")
		} else {
			f += st.Faint.Render("  (esc clears)")
		}
		lines = append(lines, text.Fit(f, w))
	}
	return strings.Join(lines, "\n")
}

// Symbol and label for a display status.
func Symbol(status string) (string, string) {
	switch status {
	case store.StatusWorking:
		return "●", "working"
	case store.StatusWaiting:
		return "◌", "waiting"
	case store.StatusNeedsInput:
		return "!", "needs input"
	case store.StatusEnded:
		return "○", "ended"
	case store.StatusStale:
		return "✗", "stale"
	}
	return "?", "unknown"
}

// StatusStyle returns the style of a display status.
func StatusStyle(st *theme.Styles, status string) func(...string) string {
	switch status {
	case store.StatusWorking:
		return st.Working.Render
	case store.StatusWaiting:
		return st.Waiting.Render
	case store.StatusNeedsInput:
		return st.NeedsInput.Render
	case store.StatusEnded:
		return st.Ended.Render
	case store.StatusStale:
		return st.Stale.Render
	}
	return st.Faint.Render
}

func (m Model) rowLines(r Row, sel bool, now time.Time, nowMin int64) []string {
	st := m.styles
	w := m.width
	sym, label := Symbol(r.Display)
	paint := StatusStyle(st, r.Display)
	mark := "  "
	if sel {
		mark = st.Cursor.Render("▌ ")
		if !m.focused {
			mark = st.Faint.Render("▌ ")
		}
	}
	age := st.Subtle.Render(" " + text.Age(now, r.LastAt))
	head := mark + paint(sym) + " " + st.Bold.Render(text.ShortID(r.ID)) + " " + paint(label)
	if r.Branch != "" {
		head += " " + st.Info.Render(r.Branch)
	}
	line1 := text.Right(head, age, w)

	var line2 string
	if r.Damaged != "" {
		line2 = "  " + st.Warn.Render("⚠ "+r.Damaged)
	} else if !r.Loaded {
		line2 = "  " + st.Faint.Render("loading…")
	} else {
		stats := " " + text.Count(int64(r.ToolCalls)) + "t"
		if r.Errors > 0 {
			stats += " " + st.Error.Render(text.Count(int64(r.Errors))+"e")
		}
		if r.AgentsRunning > 0 {
			stats += " " + st.Working.Render(text.Count(int64(r.AgentsRunning))+"a")
		}
		if r.ContextPct > 0 {
			stats += " " + ctxStyle(st, r.ContextPct)(text.Count(int64(r.ContextPct+0.5))+"%")
		}
		sw := w - 2 - text.Width(stats)
		spark := ""
		if sw >= 4 {
			spark = st.Spark.Render(chart.Sparkline(r.Activity, nowMin, min(sw, 30)))
		}
		line2 = text.Right("  "+spark, stats, w)
	}
	line1, line2 = text.Fit(line1, w), text.Fit(line2, w)
	if sel && m.focused {
		line1, line2 = st.Selected.Render(line1), st.Selected.Render(line2)
	}
	return []string{line1, line2}
}

func ctxStyle(st *theme.Styles, pct float64) func(...string) string {
	switch {
	case pct >= 85:
		return st.GaugeHigh.Render
	case pct >= 60:
		return st.GaugeMid.Render
	}
	return st.Subtle.Render
}

// CtxStyle returns the gauge style for a context percentage.
func CtxStyle(st *theme.Styles, pct float64) func(...string) string { return ctxStyle(st, pct) }
