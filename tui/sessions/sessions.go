// Package sessions is the dashboard's sessions pane: every session of the
// project, those that need input first (highlighted, with what they wait
// for), then newest activity first, with its title, status, age, id, branch,
// a sparkline of events per minute, a few counts and its estimated cost; a
// filter typed after "/" (titles, ids, branches at once, and anything the
// logs recorded through the root's search, SetFound); and a cursor whose
// session the other panes show.
package sessions

import (
	"cmp"
	"sort"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/tui/chart"
	"github.com/dylan-gluck/spcstr/tui/draw"
	"github.com/dylan-gluck/spcstr/tui/pane"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

// Row is one session as the list shows it.
type Row struct {
	store.Summary
	// Display is the status to show (store.Status*), stale included.
	Display string
	// Gates counts the session's gate decisions (⊘ denied or blocked,
	// ? asked the user, ↷ failed open).
	Gates store.GateTally
}

// SparkMinutes is the row's sparkline window: the last half hour,
// whatever the pane's width (a narrow row sums minutes per mark).
const SparkMinutes = 30

// rowHeight is the number of lines each session takes.
const rowHeight = 2

// KeyMap is the list's key bindings: the shared scrolling keys (they move
// the cursor), open, and the filter's.
type KeyMap struct {
	pane.ScrollKeys
	Open                              key.Binding
	Filter, ClearFilter, AcceptFilter key.Binding
	Sort                              key.Binding
}

// Sort is an order of the list.
type Sort int

// The orders, in the order the sort key cycles through them.
const (
	SortNeedsInput Sort = iota // those that wait for the user, then recent
	SortRecent                 // newest activity first
	SortCost                   // highest estimated cost first
	sortCount
)

var sortNames = [...]string{"needs input first", "recent first", "cost first"}

// String names the order.
func (s Sort) String() string { return sortNames[s] }

// DefaultKeyMap returns the list's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		ScrollKeys: pane.ScrollKeys{
			Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous session")),
			Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next session")),
			PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
			PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
			Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "newest session")),
			Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "oldest session")),
		},
		Open:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open session")),
		Filter:       key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "find sessions by anything recorded")),
		ClearFilter:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
		AcceptFilter: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")),
		Sort:         key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort: needs input first, recent, cost")),
	}
}

// ShortHelp implements help.KeyMap: the filter's keys while it is typed.
func (m *Model) ShortHelp() []key.Binding {
	if m.editing {
		return []key.Binding{m.Keys.AcceptFilter, m.Keys.ClearFilter}
	}
	return []key.Binding{m.Keys.Down, m.Keys.Open, m.Keys.Filter}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.Keys
	return [][]key.Binding{append(k.Bindings(), k.Open), {k.Filter, k.AcceptFilter, k.ClearFilter, k.Sort}}
}

// Model is the sessions pane.
type Model struct {
	Keys    KeyMap
	styles  *theme.Styles
	now     func() time.Time
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
	prices  pricing.Table
	order   Sort
	// found is what the last search of the logs found for the filter
	// (SetFound): sessions matched by anything recorded.
	found Found
}

var (
	_ pane.Component = (*Model)(nil)
	_ pane.Scroller  = (*Model)(nil)
)

// SetEmptyText replaces what the list says when there are no sessions (no
// lines: the default).
func (m *Model) SetEmptyText(lines ...string) { m.empty = lines }

// New returns an empty list; ages are dated by the clock (SetClock).
func New(st *theme.Styles) *Model {
	return &Model{Keys: DefaultKeyMap(), styles: st, now: time.Now}
}

// SetClock sets the clock that dates the ages and sparklines.
func (m *Model) SetClock(now func() time.Time) { m.now = now }

// SetPrices sets the price table the rows' costs are estimated with (nil:
// no costs).
func (m *Model) SetPrices(t pricing.Table) { m.prices = t }

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
func (m *Model) Editing() bool { return m.editing }

// Filter returns the filter text.
func (m *Model) Filter() string { return m.filter }

// Len is the number of sessions shown (after the filter) and in total.
func (m *Model) Len() (shown, total int) { return len(m.visible), len(m.rows) }

// Order is the list's order.
func (m *Model) Order() Sort { return m.order }

// SetOrder sorts the list again in order o, keeping the cursor on the same
// session.
func (m *Model) SetOrder(o Sort) {
	m.order = o % sortCount
	m.SetRows(m.rows)
}

// cost is a row's figure in dollars, the one its row shows (Claude
// Code's when it gave one; the priced part of a lower bound).
func (m *Model) cost(r Row) float64 {
	if m.prices == nil {
		return 0
	}
	return m.prices.Session(r.CostState()).USD
}

// SetRows replaces the rows, sorted in the list's order (by default those
// that wait for the user first, then newest activity first), keeping the
// cursor on the same session.
func (m *Model) SetRows(rows []Row) {
	sel, had := m.Selected()
	m.rows = rows
	sort.SliceStable(m.rows, func(i, j int) bool {
		// A session that waits for the user comes first.
		if ni, nj := m.rows[i].Display == store.StatusNeedsInput, m.rows[j].Display == store.StatusNeedsInput; ni != nj && m.order == SortNeedsInput {
			return ni
		}
		if m.order == SortCost {
			if ci, cj := m.cost(m.rows[i]), m.cost(m.rows[j]); ci != cj {
				return ci > cj
			}
		}
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
func (m *Model) Selected() (Row, bool) {
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

// ClockKey is what the list shows that changes with the time alone: the
// shown rows' ages and the sparklines' current minute.
func (m *Model) ClockKey(now time.Time) string {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(now.Unix()/60, 10))
	per := max(m.listHeight()/rowHeight, 1)
	for i := m.offset; i < len(m.visible) && i < m.offset+per; i++ {
		b.WriteByte(' ')
		b.WriteString(text.Age(now, m.rows[m.visible[i]].LastAt))
	}
	return b.String()
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
		_, found := m.found[r.ID]
		if f == "" || matches(r, f) || found {
			m.visible = append(m.visible, i)
		}
	}
}

func matches(r Row, f string) bool {
	for _, s := range []string{r.ID, r.Title, r.Display, r.Branch, r.Model, r.Cwd, r.LastPrompt} {
		if strings.Contains(strings.ToLower(s), f) {
			return true
		}
	}
	return false
}

func (m *Model) listHeight() int {
	h := m.height
	if m.footLine() {
		h--
	}
	return max(h, 0)
}

// footLine reports whether the list ends with a line for the filter or a
// sort order other than the default (which stays in sight, not only in a
// passing message).
func (m *Model) footLine() bool {
	return m.editing || m.filter != "" || m.order != SortNeedsInput
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

// ScrollKeys implements pane.Scroller.
func (m *Model) ScrollKeys() pane.ScrollKeys { return m.Keys.ScrollKeys }

// Scroll implements pane.Scroller: it moves the cursor (a page is the rows
// shown).
func (m *Model) Scroll(mv pane.Move) {
	m.cursor = mv.Apply(m.cursor, len(m.visible), m.listHeight()/rowHeight)
	m.clamp()
}

// Update handles keys while the list has focus: the filter's while it is
// typed, else scrolling and the filter's. The root sees the selection
// change through Selected.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	if m.editing {
		before := m.filter
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
			return nil
		}
		if m.filter != before {
			m.found = nil // the search for the new filter answers later
		}
		m.refilter()
		m.cursor = 0
		m.clamp()
		return nil
	}
	if mv, ok := m.Keys.Match(k); ok {
		m.Scroll(mv)
		return nil
	}
	switch {
	case key.Matches(k, m.Keys.Filter):
		m.editing = true
		m.clamp()
	case key.Matches(k, m.Keys.Sort):
		m.SetOrder(m.order + 1)
	case key.Matches(k, m.Keys.ClearFilter) && m.filter != "":
		m.filter, m.found = "", nil
		m.refilter()
		m.clamp()
	}
	return nil
}

// View draws the list at its size.
func (m *Model) View() string {
	now := m.now()
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
	// The sparklines of the rows shown share one column: they start
	// after the widest id and branch and end before the widest counts.
	var cols columns
	for i := m.offset; i < len(m.visible) && i < m.offset+per; i++ {
		r := m.rows[m.visible[i]]
		cols.id = max(cols.id, text.Width(m.idPart(r)))
		cols.stats = max(cols.stats, text.Width(m.stats(r)))
	}
	for i := m.offset; i < len(m.visible) && i < m.offset+per; i++ {
		r := m.rows[m.visible[i]]
		sel := i == m.cursor
		lines = append(lines, m.rowLines(r, sel, now, nowMin, cols)...)
	}
	for len(lines) < m.listHeight() {
		lines = append(lines, strings.Repeat(" ", w))
	}
	lines = lines[:m.listHeight()]
	if m.footLine() {
		var f string
		if m.editing || m.filter != "" {
			f = st.Filter.Render("/") + m.filter
			if m.editing {
				f += st.Cursor.Render("█")
			} else {
				f += st.Faint.Render("  (esc clears)")
			}
		}
		if m.order != SortNeedsInput {
			f = text.Right(f, st.Subtle.Render(" sorted: "+m.order.String()), w)
		}
		lines = append(lines, text.Fit(f, w))
	}
	return strings.Join(lines, "\n")
}

// columns are the widths shared by the rows shown: the id and branch, and
// the counts.
type columns struct{ id, stats int }

func (m *Model) rowLines(r Row, sel bool, now time.Time, nowMin int64, cols columns) []string {
	st := m.styles
	w := m.width
	sym, label := draw.Symbol(r.Display)
	paint := draw.StatusStyle(st, r.Display)
	mark := "  "
	if sel {
		mark = st.Cursor.Render("▌ ")
		if !m.focused {
			mark = st.Faint.Render("▌ ")
		}
	}
	// Line 1: status symbol, title; status and age on the right.
	title := st.Bold.Render(r.Title)
	switch {
	case r.Title != "":
	case !r.Loaded:
		title = st.Faint.Render("…")
	case r.Damaged != "":
		title = st.Faint.Render("untitled")
	default:
		title = st.Faint.Render("no prompt yet")
	}
	needs := r.Display == store.StatusNeedsInput
	if needs {
		title = st.NeedsInput.Render(cmp.Or(r.Title, "no prompt yet"))
	}
	right := " " + paint(label) + st.Subtle.Render(" "+text.Age(now, r.LastAt))
	line1 := text.Right(mark+paint(sym)+" "+title, right, w)

	// Line 2: id, branch, sparkline; counts and cost on the right.
	id := m.idPart(r)
	var line2 string
	if hit, ok := m.found[r.ID]; ok && m.filter != "" && !matches(r, strings.ToLower(strings.TrimSpace(m.filter))) {
		// Found by what it recorded: say where.
		line2 = id + " " + st.Filter.Render("↳ ") + st.Subtle.Render(hit)
	} else if needs && r.Asks != "" {
		// What it waits for says more than its sparkline.
		line2 = id + " " + st.NeedsInput.Render(r.Asks)
	} else if r.Damaged != "" {
		line2 = id + " " + st.Warn.Render("⚠ "+r.Damaged)
	} else if !r.Loaded {
		line2 = id + " " + st.Faint.Render("loading…")
	} else {
		stats := m.stats(r)
		// The sparkline starts at the shared column when the counts
		// leave room, and is as wide on every row.
		start := max(cols.id, text.Width(id))
		sw := w - start - 1 - max(cols.stats, text.Width(stats))
		if sw < 4 {
			start = text.Width(id)
			sw = w - start - 1 - text.Width(stats)
		}
		spark := ""
		if sw >= 4 {
			sp, _ := chart.SparkWindow(r.Activity, nowMin, SparkMinutes, sw)
			spark = strings.Repeat(" ", start-text.Width(id)) + " " + st.Spark.Render(sp)
		}
		line2 = text.Right(id+spark, stats, w)
	}
	line1, line2 = text.Fit(line1, w), text.Fit(line2, w)
	if sel && m.focused {
		line1, line2 = st.Selected.Render(line1), st.Selected.Render(line2)
	}
	return []string{line1, line2}
}
