// Package timeline is the dashboard's picture of sessions over time (t):
// one lane per session, the selected one first, time across. A lane's
// first track marks its tool calls, prompts, gate decisions (deny and
// block in red, dry run apart), waits for the user and compactions; its
// second draws its agents as bars from start to end (background ones
// dashed) and the periods it waited for the user. The window zooms, follows
// now or moves with the cursor, and enter opens the event under the cursor
// (events.OpenMsg). The root reads the lanes in a command (Lane).
package timeline

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/tui/draw"
	"github.com/dylan-gluck/spcstr/tui/events"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

// Bar is a span of a lane: an agent, or a wait for the user.
type Bar struct {
	Start, End time.Time // End zero: still running
	Label      string
	Background bool
}

// Lane is one session's row.
type Lane struct {
	ID, Title string
	Events    []store.Event // oldest first
	Agents    []Bar
}

// Spans are the zoom levels, shortest first.
var Spans = []time.Duration{5 * time.Minute, 15 * time.Minute, time.Hour, 3 * time.Hour, 12 * time.Hour, 24 * time.Hour}

// DefaultSpan is the window shown first: the last hour.
const DefaultSpan = 2

// KeyMap is the timeline's keys.
type KeyMap struct {
	Prev, Next, Up, Down, ZoomIn, ZoomOut, Now, Open, Close key.Binding
}

// DefaultKeyMap returns the bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Prev:    key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "previous mark")),
		Next:    key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "next mark")),
		Up:      key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous lane")),
		Down:    key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next lane")),
		ZoomIn:  key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "zoom in")),
		ZoomOut: key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "zoom out")),
		Now:     key.NewBinding(key.WithKeys("n", "G", "end"), key.WithHelp("n", "follow now")),
		Open:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open the mark's event")),
		Close:   key.NewBinding(key.WithKeys("esc", "q", "t"), key.WithHelp("esc", "close")),
	}
}

// ShortHelp implements help.KeyMap.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Open, k.ZoomIn, k.ZoomOut, k.Now}
}

// FullHelp implements help.KeyMap.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Prev, k.Next, k.Up, k.Down, k.ZoomIn, k.ZoomOut, k.Now, k.Open, k.Close}}
}

// Model is the timeline.
type Model struct {
	Keys    KeyMap
	styles  *theme.Styles
	now     func() time.Time
	lanes   []Lane
	loaded  bool
	span    int       // index into Spans
	end     time.Time // the window's end when not following
	follow  bool
	lane    int // the selected lane
	cur     int // index into the lane's marks (-1: none)
	width   int
	height  int
	focused string // the session selected when it opened
	// readFrom is how far back the lanes were read.
	readFrom time.Time
}

// New returns an empty timeline.
func New(st *theme.Styles, now func() time.Time) *Model {
	return &Model{Keys: DefaultKeyMap(), styles: st, now: now, span: DefaultSpan, follow: true, cur: -1}
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return m.Keys.ShortHelp() }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return m.Keys.FullHelp() }

// SetStyles replaces the styles.
func (m *Model) SetStyles(st *theme.Styles) { m.styles = st }

// SetSize sets the size; the last line is the cursor's event.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Open starts a timeline for the session selected (its lane first once
// read), its window fitted to from–to: the time the sessions on screen
// span (zero: the last hour).
func (m *Model) Open(selected string, from, to time.Time) {
	m.lanes, m.loaded, m.lane, m.cur, m.follow, m.focused = nil, false, 0, -1, true, selected
	m.span, m.end = DefaultSpan, time.Time{}
	m.fit(from, to)
}

// fit picks the shortest zoom level that holds from–to with a margin, and
// follows now when to is recent enough to fit in it with now; else the
// window ends just after to.
func (m *Model) fit(from, to time.Time) {
	if from.IsZero() || to.IsZero() || to.Before(from) {
		return
	}
	now := m.now()
	need := to.Sub(from) + to.Sub(from)/10
	m.span = len(Spans) - 1
	for i, sp := range Spans {
		if sp >= need {
			m.span = i
			break
		}
	}
	sp := Spans[m.span]
	if now.Sub(from) <= sp || now.Sub(to) < sp/20 {
		return // following now shows it all
	}
	m.follow, m.end = false, to.Add(sp/20)
}

// Since is how far back the window reaches: what the root reads (a wider
// window asks again, with ReloadMsg).
func (m *Model) Since() time.Time { return m.windowEnd().Add(-Spans[m.span]) }

// ReloadMsg asks the root to read the lanes again from Since: the window
// reaches further back than what was read.
type ReloadMsg struct{}

// SetLanes gives the timeline its lanes (the selected session first), read
// from since.
func (m *Model) SetLanes(lanes []Lane, since time.Time) {
	m.lanes, m.loaded, m.readFrom = lanes, true, since
	m.lane = min(m.lane, max(len(lanes)-1, 0))
	m.cur = len(m.marks()) - 1
}

// Selected is the lane's session shown first (the root reads it).
func (m *Model) Selected() string { return m.focused }

func (m *Model) windowEnd() time.Time {
	if m.follow || m.end.IsZero() {
		return m.now()
	}
	return m.end
}

// marks are the selected lane's events that have a mark.
func (m *Model) marks() []store.Event {
	if m.lane >= len(m.lanes) {
		return nil
	}
	var out []store.Event
	for _, e := range m.lanes[m.lane].Events {
		if _, _, ok := m.symbol(e); ok {
			out = append(out, e)
		}
	}
	return out
}

// Update handles the timeline's keys (the root closes it on Keys.Close).
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	marks := m.marks()
	switch {
	case key.Matches(k, m.Keys.Prev), key.Matches(k, m.Keys.Next):
		d := 1
		if key.Matches(k, m.Keys.Prev) {
			d = -1
		}
		m.cur = min(max(m.cur+d, 0), len(marks)-1)
		if m.cur >= 0 {
			at := marks[m.cur].At
			end := m.windowEnd()
			if at.Before(end.Add(-Spans[m.span])) || at.After(end) {
				m.follow, m.end = false, at.Add(Spans[m.span]/2)
			}
		}
	case key.Matches(k, m.Keys.Up):
		m.lane = max(m.lane-1, 0)
		m.cur = len(m.marks()) - 1
	case key.Matches(k, m.Keys.Down):
		m.lane = min(m.lane+1, max(len(m.lanes)-1, 0))
		m.cur = len(m.marks()) - 1
	case key.Matches(k, m.Keys.ZoomIn):
		m.span = max(m.span-1, 0)
	case key.Matches(k, m.Keys.ZoomOut):
		m.span = min(m.span+1, len(Spans)-1)
		if m.loaded && m.Since().Before(m.readFrom) {
			return func() tea.Msg { return ReloadMsg{} }
		}
	case key.Matches(k, m.Keys.Now):
		m.follow, m.cur = true, len(marks)-1
	case key.Matches(k, m.Keys.Open):
		if m.cur >= 0 && m.cur < len(marks) {
			e := marks[m.cur]
			return func() tea.Msg { return events.OpenMsg{Event: e} }
		}
	}
	return nil
}

// symbol is an event's mark and style, and whether it has one.
func (m *Model) symbol(e store.Event) (string, func(...string) string, bool) {
	st := m.styles
	switch e.Event {
	case "Decision":
		switch {
		case strings.Contains(e.Detail, "(dry run)"):
			return "◇", st.Warn.Render, true
		case e.Failed:
			return "✗", st.Error.Render, true
		}
		return "", nil, false // allows are not news
	case "PreToolUse":
		return "•", st.Info.Render, true
	case "PostToolUseFailure":
		return "!", st.Error.Render, true
	case "UserPromptSubmit":
		return "›", st.Bold.Render, true
	case "Notification", "PermissionRequest", "Elicitation":
		return "?", st.NeedsInput.Render, true
	case "PreCompact":
		return "↻", st.Subtle.Render, true
	case "SessionStart":
		return "▶", st.Subtle.Render, true
	}
	return "", nil, false
}

// rank orders marks that share a cell: the most telling one is drawn.
func rank(sym string) int {
	return strings.Index("•›▶↻?◇!✗", sym)
}

// View draws the lanes, an axis and the cursor's event.
func (m *Model) View() string {
	st := m.styles
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	span := Spans[m.span]
	end := m.windowEnd()
	start := end.Add(-span)
	title := "Timeline · last " + spanName(span)
	if !m.follow {
		title = "Timeline · " + spanName(span) + " to " + draw.Clock(end)
	}
	right := st.Faint.Render(" following now")
	if !m.follow {
		right = st.Warn.Render(" paused (n follows)")
	}
	out := []string{text.Right(st.Section.Render(title), right, w)}
	if !m.loaded {
		out = append(out, st.Faint.Render(" reading the logs…"))
		return strings.Join(pad(out, w, h), "\n")
	}
	lanes := m.lanes
	per := 3
	room := max((h-3)/per, 1)
	if w < 60 {
		room = 1 // narrow: the selected session alone
	}
	first := 0
	if m.lane >= room {
		first = m.lane - room + 1
	}
	marks := m.marks()
	var curAt time.Time
	if m.cur >= 0 && m.cur < len(marks) {
		curAt = marks[m.cur].At
	}
	cell := func(t time.Time) int {
		if t.Before(start) || t.After(end) {
			return -1
		}
		return min(int(float64(t.Sub(start))/float64(span)*float64(w)), w-1)
	}
	for li := first; li < len(lanes) && li < first+room; li++ {
		ln := lanes[li]
		label := ln.Title
		if label == "" {
			label = text.ShortID(ln.ID)
		}
		mark := "  "
		if li == m.lane {
			mark = st.Cursor.Render("▌ ")
		}
		out = append(out, text.Fit(mark+st.Bold.Render(label)+" "+st.Faint.Render(text.ShortID(ln.ID)), w))
		// Track 1: marks.
		cells := make([]string, w)
		ranks := make([]int, w)
		for i := range cells {
			cells[i], ranks[i] = " ", -1
		}
		for _, e := range ln.Events {
			sym, paint, ok := m.symbol(e)
			c := cell(e.At)
			if !ok || c < 0 {
				continue
			}
			if r := rank(sym); r > ranks[c] {
				ranks[c], cells[c] = r, paint(sym)
			}
			if li == m.lane && e.At.Equal(curAt) && !curAt.IsZero() {
				ranks[c], cells[c] = 99, st.Selected.Render(sym)
			}
		}
		out = append(out, strings.Join(cells, ""))
		// Track 2: agents and waits.
		bars := make([]string, w)
		for i := range bars {
			bars[i] = " "
		}
		paintBar := func(b Bar, r string, paint func(...string) string) {
			e := b.End
			if e.IsZero() {
				e = end
			}
			if e.Before(start) || b.Start.After(end) {
				return
			}
			from, to := max(cell(maxTime(b.Start, start)), 0), cell(minTime(e, end))
			if to < 0 {
				to = w - 1
			}
			for i := from; i <= to && i < w; i++ {
				bars[i] = paint(r)
			}
			if lbl := []rune(b.Label); to-from-1 > len(lbl) {
				for i, ch := range lbl {
					bars[from+1+i] = paint(string(ch))
				}
			}
		}
		for _, b := range waits(ln.Events, end) {
			paintBar(b, "░", st.NeedsInput.Render)
		}
		for _, b := range ln.Agents {
			if b.Background {
				paintBar(b, "┅", st.Working.Render)
			} else {
				paintBar(b, "━", st.Working.Render)
			}
		}
		out = append(out, strings.Join(bars, ""))
	}
	if len(lanes) == 0 {
		out = append(out, st.Subtle.Render(" No events in this window."))
	}
	out = pad(out, w, h-2)
	out = append(out, m.axis(start, span, w))
	// The cursor's event, whole enough to know it; enter opens it.
	foot := st.Faint.Render(" ← → move between marks; enter opens one")
	if m.cur >= 0 && m.cur < len(marks) {
		foot = draw.EventLines(st, marks[m.cur:m.cur+1], w, false)[0]
	}
	out = append(out, text.Fit(foot, w))
	return strings.Join(out, "\n")
}

// tickSteps are the axis's tick intervals, shortest first: ticks fall on
// round times.
var tickSteps = []time.Duration{
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour,
}

// tickWidth is the room a tick's label needs ("┬15:04" and a gap).
const tickWidth = 9

// axis labels the window's time across, with ticks on round times (whole
// minutes, five minutes, hours...) as dense as their labels allow.
func (m *Model) axis(start time.Time, span time.Duration, w int) string {
	b := []rune(strings.Repeat("─", w))
	if w <= 0 {
		return ""
	}
	step := tickSteps[len(tickSteps)-1]
	for _, s := range tickSteps {
		if float64(s)/float64(span)*float64(w) >= tickWidth {
			step = s
			break
		}
	}
	// The first round time at or after start, in local time (an hour
	// tick falls on the hour where the user is).
	local := start.Local()
	_, off := local.Zone()
	shift := time.Duration(off) * time.Second
	at := start.Add(shift).Truncate(step).Add(-shift)
	if at.Before(start) {
		at = at.Add(step)
	}
	for ; !at.After(start.Add(span)); at = at.Add(step) {
		c := int(float64(at.Sub(start)) / float64(span) * float64(w))
		lbl := []rune("┬" + at.Local().Format("15:04"))
		if c+len(lbl) > w {
			break
		}
		copy(b[c:], lbl)
	}
	return m.styles.Faint.Render(string(b))
}

// waits are the periods a lane waited for the user: from a notification or
// a permission request to its next other event.
func waits(evs []store.Event, now time.Time) []Bar {
	var out []Bar
	var from time.Time
	for _, e := range evs {
		switch e.Event {
		case "Notification", "PermissionRequest", "Elicitation":
			if from.IsZero() {
				from = e.At
			}
		case "Decision":
		default:
			if !from.IsZero() {
				out = append(out, Bar{Start: from, End: e.At})
				from = time.Time{}
			}
		}
	}
	if !from.IsZero() {
		out = append(out, Bar{Start: from, End: now})
	}
	return out
}

// spanName names a zoom level ("15m", "1h").
func spanName(d time.Duration) string {
	if d >= time.Hour {
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dm", int(d.Minutes()))
}

func pad(lines []string, w, h int) []string {
	for len(lines) < h {
		lines = append(lines, strings.Repeat(" ", w))
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = text.Fit(l, w)
	}
	return lines
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// Legend says what the marks mean (the help overlay lists it).
func Legend() [][2]string {
	return [][2]string{
		{"•", "a tool call"}, {"!", "a failed tool call"}, {"›", "a prompt"},
		{"✗", "a gate denied or blocked"}, {"◇", "a dry-run decision (not enforced)"},
		{"?", "waited for you (░ while it waited)"}, {"↻", "a compaction"}, {"▶", "a session start"},
		{"━ ┅", "an agent (┅ in the background)"},
	}
}
