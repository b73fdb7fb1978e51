package tui

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/internal/permchan"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/card"
	"github.com/dylan-gluck/spcstr/tui/detail"
	"github.com/dylan-gluck/spcstr/tui/entry"
	"github.com/dylan-gluck/spcstr/tui/events"
	"github.com/dylan-gluck/spcstr/tui/loop"
	"github.com/dylan-gluck/spcstr/tui/notify"
	"github.com/dylan-gluck/spcstr/tui/pane"
	"github.com/dylan-gluck/spcstr/tui/reqs"
	"github.com/dylan-gluck/spcstr/tui/sessions"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/theme"
	"github.com/dylan-gluck/spcstr/tui/timeline"
	"github.com/dylan-gluck/spcstr/tui/watch"
)

// Pane identifies one of the dashboard's panes.
type Pane int

// The panes, in tab order.
const (
	PaneSessions Pane = iota
	PaneDetail
	PaneEvents
	PaneRequirements
	PaneFeedback
	paneCount
)

var paneNames = [...]string{"Sessions", "Detail", "Events", "Reqs", "Loop"}

// WideWidth is the width from which the list sits beside the detail.
const WideWidth = 100

// shared holds what must outlive value copies of the model (the watcher,
// closed when the program ends; the last frame drawn).
type shared struct {
	mu      sync.Mutex
	watcher *watch.Watcher
	// frame is the last frame View drew, for generation frameGen.
	frame    string
	frameGen uint64
	framed   bool
	back     bool // q was pressed with Options.Back: back to the projects
	// perm is the permission channel's server (the project's lease).
	perm *permchan.Server
}

func (s *shared) permServer() *permchan.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.perm
}

func (s *shared) set(w *watch.Watcher) {
	s.mu.Lock()
	s.watcher = w
	s.mu.Unlock()
}

func (s *shared) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watcher != nil {
		s.watcher.Close()
		s.watcher = nil
	}
	if s.perm != nil {
		_ = s.perm.Close() // open prompts are left to the terminal
		s.perm = nil
	}
}

// Model is the dashboard's root model. It routes: results of reads go to
// the store (package store) and from there to the panes; keys and the mouse
// go to the focused pane; the header, footer and help overlay are drawn in
// chrome.go, the layout in view.go.
type Model struct {
	ctx    context.Context
	opt    Options
	shared *shared
	keys   KeyMap
	styles *theme.Styles
	isDark bool
	st     *store.Store

	// The panes, by Pane (see pane).
	list *sessions.Model
	det  *detail.Model
	ev   *events.Model
	req  *reqs.Model
	fb   *loop.Model
	help help.Model
	// entry shows one event in full while showEntry.
	entry     *entry.Model
	showEntry bool
	// card shows the permission prompts posted to this dashboard; while
	// one is up it has the keyboard.
	card *card.Model
	// tl is the timeline, shown while showTimeline (under an entry
	// opened from it).
	tl           *timeline.Model
	showTimeline bool

	width, height int
	focus         Pane
	right         Pane // the pane beside the list in the wide layout
	showHelp      bool
	helpOffset    int
	follow        bool
	status        string
	statusUntil   time.Time
	// confirm is a requirement action waiting for y/n (confirm.go).
	confirm *reqs.ActionMsg

	// selected is the session the panes show; selState its full state.
	selected   string
	selState   *state.Session
	watchErr   string
	watching   bool
	watchTried bool          // the watcher's start has answered (until then "not watching" would be a lie)
	strategies strategiesMsg // the last read of the strategies
	project    string        // the project folder's name, sanitised
	// tick is the clock's period (0: no clock; tests).
	tick time.Duration
	// gen counts the updates that may change the frame: View draws again
	// only when it moved. clock is what the frame shows that depends on
	// the time (ages, run times, the sparklines' minute), so that a clock
	// tick that changes none of it draws nothing.
	gen   uint64
	clock string
	// asking says, for each session seen, whether it waits for the
	// user; ring asks for the bell (one started waiting).
	asking  map[string]bool
	ring    bool
	cfgBell bool // dashboard.bell in .spcstr/config.yaml
	// tracker turns status changes into notices; pending holds those
	// to send after this update; cfgNotify is dashboard.notify.
	tracker   *notify.Tracker
	pending   []notify.Notice
	cfgNotify bool
}

// New builds the dashboard's model. Nothing is read until Init's commands
// run.
func New(ctx context.Context, opt Options) Model {
	opt.defaults()
	if ctx == nil {
		ctx = context.Background()
	}
	st := theme.New(true, opt.NoColor)
	wired := opt.ReqActions.SatisfySession != nil || opt.ReqActions.SatisfyBranch != nil || opt.ReqActions.Clear != nil
	m := Model{
		ctx: ctx, opt: opt, shared: &shared{}, keys: DefaultKeyMap(), styles: st, isDark: true,
		st:   store.New(opt.Layout),
		list: sessions.New(st), det: detail.New(st), ev: events.New(st),
		req: reqs.New(st, wired), fb: loop.New(st), help: help.New(), entry: entry.New(st), card: card.New(st, opt.Now), tl: timeline.New(st, opt.Now),
		focus: PaneSessions, right: PaneDetail, follow: true,
		tick: time.Second, project: text.Sanitize(filepath.Base(opt.Layout.Root)),
		asking: map[string]bool{}, tracker: &notify.Tracker{},
	}
	m.help.Styles = st.Help
	if opt.Back {
		m.keys.Quit.SetHelp("q", "all projects")
	}
	m.list.SetEmptyText("Reading the sessions…") // until the list is read
	m.list.SetClock(opt.Now)
	m.list.SetFocused(true)
	return m
}

// pane returns one of the panes.
func (m *Model) pane(p Pane) pane.Component {
	switch p {
	case PaneDetail:
		return m.det
	case PaneEvents:
		return m.ev
	case PaneRequirements:
		return m.req
	case PaneFeedback:
		return m.fb
	}
	return m.list
}

// Init starts reading: the session list, the registry, the log tails, the
// watcher, and the clock.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{
		tea.RequestBackgroundColor,
		listingCmd(m.opt.Layout),
		registryCmd(m.opt.RegistryPath, m.opt.Alive),
		tailStartCmd(m.opt.Layout),
		strategiesCmd(m.opt.Layout),
	}
	if m.tick > 0 {
		cmds = append(cmds, tickCmd(m.tick))
	}
	if m.opt.PermDir != "" {
		cmds = append(cmds, permListenCmd(m.opt.PermDir, m.opt.Layout.Root, nil))
	}
	if !m.opt.NoWatch {
		cmds = append(cmds, watchStartCmd(watch.Options{
			Layout: m.opt.Layout, RegistryPath: m.opt.RegistryPath, RequirementsDir: m.opt.RequirementsDir,
		}))
	}
	return tea.Batch(cmds...)
}

// Ready reports whether the first full frame can be drawn: the session list
// and the newest sessions' states have been read.
func (m Model) Ready() bool { return m.st.Ready() }

func (m Model) now() time.Time { return m.opt.Now() }

func (m Model) wide() bool { return m.width >= WideWidth }

// Update handles messages: results of reads, changes from the watcher, keys,
// the mouse, resizes and the clock.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg.(type) {
	case tickMsg, aliveMsg: // they say themselves whether anything changed
	default:
		m.gen++
	}
	if cmd, ok := m.permUpdate(msg); ok {
		return m, tea.Batch(append([]tea.Cmd{cmd}, m.sendNotices()...)...)
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
	case tea.BackgroundColorMsg:
		m.isDark = msg.IsDark()
		m.setStyles(theme.New(m.isDark, m.opt.NoColor))
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case tea.MouseWheelMsg:
		return m.handleWheel(msg)
	case tea.MouseClickMsg:
		return m.handleClick(msg)

	case listingMsg:
		if msg.err != nil {
			m.flash("cannot list sessions: " + msg.err.Error())
		}
		if msg.missing {
			m.list.SetEmptyText("No .spcstr/ folder here yet.", "Run spcstr init in the project;", "sessions appear as they start.")
		} else {
			m.list.SetEmptyText()
		}
		r := m.st.ApplyListing(msg.list, m.selected)
		m.rebuildRows()
		if r.Empty() {
			cmds = append(cmds, m.selectionChanged()...)
		}
		cmds = append(cmds, m.read(r)...)
	case sessionsMsg:
		m.st.ApplySessions(msg.Sessions)
		m.rebuildRows()
		cmds = append(cmds, m.selectionChanged()...)
		if st, ok := msg.States[m.selected]; ok && m.selected != "" {
			m.selState = st
			m.showDetail()
		}
		cmds = append(cmds, m.read(m.st.AfterSessions(msg.Sessions, m.selected))...)
	case registryMsg:
		m.st.SetRegistry(msg.reg, msg.alive)
		m.rebuildRows()
		cmds = append(cmds, m.selectionChanged()...)
	case aliveMsg:
		if m.st.SetAlive(msg.alive) {
			m.gen++
			m.rebuildRows()
		}
	case tailMsg:
		r := m.st.ApplyTail(msg.Tail, m.selected)
		m.rebuildRows() // the rows' gate counts
		m.showEvents()
		cmds = append(cmds, m.read(r)...)
		cmds = append(cmds, m.loadCustom())
	case customMsg:
		if msg.id == m.selected {
			m.ev.SetCustom(msg.id, msg.evs)
		}
	case historyMsg:
		m.st.ApplyHistory(msg.SessionHistory)
		m.showEvents()
	case reqMsg:
		if msg.id == m.selected {
			m.req.SetView(msg.view)
		}
	case feedbackMsg:
		if msg.id == m.selected {
			m.fb.SetView(msg.view)
		}
	case events.OpenMsg, entryMsg, focusDoneMsg, notifyRawMsg, notifyErrMsg, timelineMsg, timeline.ReloadMsg:
		cmds = append(cmds, m.reach(msg))
	case searchWaitMsg, searchMsg:
		cmds = append(cmds, m.onSearch(msg))
	case reqs.ActionMsg:
		m.askAction(msg)
	case actionDoneMsg:
		if msg.err != nil {
			m.flash(msg.err.Error())
		} else {
			m.flash(msg.text)
			cmds = append(cmds, m.loadReq())
		}
	case watchStartedMsg:
		m.watchTried = true
		if msg.err != nil {
			m.watchErr = "not watching for changes: " + msg.err.Error()
			m.flash(m.watchErr)
			break
		}
		m.shared.set(msg.w)
		m.watching = true
		cmds = append(cmds, waitChangeCmd(m.ctx, msg.w), listingCmd(m.opt.Layout))
	case strategiesMsg:
		m.strategies = msg
		m.cfgBell = msg.bell
		m.cfgNotify = msg.notify
		m.tracker.LongTurn = msg.longTurn
		if msg.methodErr != nil {
			m.flash("config: " + msg.methodErr.Error())
		}
		m.req.SetDryRun(msg.dryRun)
		m.list.SetPrices(msg.prices)
		m.det.SetPrices(msg.prices)
		m.det.Refresh(m.now())
		if msg.err != nil {
			m.flash("config: " + msg.err.Error())
		}
	case changeMsg:
		cmds = append(cmds, m.applyChange(msg.c)...)
		if w := m.shared.watcher; w != nil {
			cmds = append(cmds, waitChangeCmd(m.ctx, w))
		}
	case watchEndedMsg:
		m.watching = false
	case tickMsg:
		if !m.statusUntil.IsZero() && m.now().After(m.statusUntil) {
			m.status, m.statusUntil = "", time.Time{}
			m.gen++
		}
		// Redraw only when a text that depends on the time changed.
		if c := m.clockKey(); c != m.clock {
			m.clock = c
			m.det.Refresh(m.now())
			m.gen++
		}
		if m.tick > 0 {
			cmds = append(cmds, tickCmd(m.tick))
		}
		if reg, ok := m.st.Registry(); ok {
			cmds = append(cmds, aliveCmd(reg, m.opt.Alive))
		}
	}
	if m.card.Active() {
		cmds = append(cmds, m.withdrawAnswered()...)
	}
	cmds = append(cmds, m.sendNotices()...)
	if m.ring {
		m.ring = false
		if m.opt.Bell || m.cfgBell {
			cmds = append(cmds, tea.Raw(bell))
		}
	}
	return m, tea.Batch(cmds...)
}

// clockKey is every text of the frame that changes with the time alone:
// the list's ages and the detail's run times (each pane says which).
func (m Model) clockKey() string {
	now := m.now()
	k := m.list.ClockKey(now) + "|" + m.det.ClockKey(now) + "|" + m.card.ClockKey(now)
	if m.showTimeline {
		k += "|" + strconv.FormatInt(now.Unix()/15, 10) // the window follows now
	}
	return k
}

// read turns what the store asks to read into commands, in its order.
func (m *Model) read(r store.Reads) []tea.Cmd {
	var cmds []tea.Cmd
	if r.Listing {
		cmds = append(cmds, listingCmd(m.opt.Layout))
	}
	for _, s := range r.Sessions {
		cmds = append(cmds, sessionsCmd(m.opt.Layout, s))
	}
	if r.Tail != nil {
		cmds = append(cmds, tailCmd(*r.Tail))
	}
	if r.History != "" {
		cmds = append(cmds, historyCmd(m.opt.Layout, r.History))
	}
	return cmds
}

func (m *Model) setStyles(st *theme.Styles) {
	m.styles = st
	for p := range paneCount {
		m.pane(p).SetStyles(st)
	}
	m.help.Styles = st.Help
	m.entry.SetStyles(st)
	m.card.SetStyles(st)
	m.tl.SetStyles(st)
	m.det.Refresh(m.now())
}

// flash shows s in the footer for a few seconds (s may hold a file name or
// an error's text: it is sanitised here).
func (m *Model) flash(s string) {
	m.status = text.Sanitize(s)
	m.statusUntil = m.now().Add(5 * time.Second)
}

func (m *Model) applyChange(c watch.Change) []tea.Cmd {
	var cmds []tea.Cmd
	if c.Err != nil {
		m.flash("watcher: " + c.Err.Error())
	}
	ids := make([]string, 0, len(c.Sessions))
	for id := range c.Sessions {
		ids = append(ids, id)
		m.st.Touch(id, store.Summary{ID: id, LastAt: m.now()})
	}
	if len(ids) > 0 || c.Rescan {
		m.rebuildRows()
		cmds = append(cmds, m.read(m.st.QueueSessions(ids, c.Rescan))...)
	}
	if len(c.Logs) > 0 {
		paths := make([]string, 0, len(c.Logs))
		for p := range c.Logs {
			paths = append(paths, p)
		}
		cmds = append(cmds, m.read(m.st.QueueTail(paths))...)
	}
	if c.Registry {
		cmds = append(cmds, registryCmd(m.opt.RegistryPath, m.opt.Alive))
	}
	if c.Config {
		cmds = append(cmds, strategiesCmd(m.opt.Layout))
	}
	if c.Requirements && m.selected != "" {
		cmds = append(cmds, m.loadReq())
	}
	if c.Feedback[m.selected] && m.selected != "" {
		cmds = append(cmds, m.loadFeedback())
	}
	return cmds
}

// rebuildRows recomputes the list rows from the store, and follows the
// newest session when asked to.
func (m *Model) rebuildRows() {
	sums := m.st.Summaries()
	rows := make([]sessions.Row, 0, len(sums))
	for _, s := range sums {
		rows = append(rows, sessions.Row{Summary: s, Display: m.st.Display(s), Gates: m.st.Gates(s.ID)})
	}
	m.list.SetRows(rows)
	m.watchAsking(rows)
	// Follow moves the cursor only while the list has the focus: an
	// opened session is never swapped under the reader.
	if m.follow && m.focus == PaneSessions {
		m.list.SelectFollowed()
	}
	if r, ok := m.list.Selected(); ok && r.ID == m.selected {
		m.det.SetSummary(r.Summary, r.Display, m.now())
	}
}

func (m Model) currentID() string {
	if r, ok := m.list.Selected(); ok {
		return r.ID
	}
	return ""
}

// selectionChanged loads what the panes need when the selected session is
// a different one.
func (m *Model) selectionChanged() []tea.Cmd {
	id := m.currentID()
	if id == m.selected {
		return nil
	}
	m.selected = id
	if id == "" {
		m.selState = nil
		m.det.Clear()
		m.showEvents()
		return nil
	}
	m.selState = m.st.State(id)
	m.showDetail()
	m.showEvents()
	cmds := []tea.Cmd{m.loadReq(), m.loadFeedback(), m.loadCustom()}
	return append(cmds, m.read(m.st.Select(id))...)
}

func (m *Model) showDetail() {
	r, ok := m.list.Selected()
	if !ok {
		m.det.Clear()
		return
	}
	m.det.SetSession(r.Summary, r.Display, m.selState, m.now())
	m.det.SetRecent(m.st.Events(r.ID), m.now())
}

// loadCustom reads the selected session's custom observability events
// while the event tail shows decisions only (nil otherwise).
func (m *Model) loadCustom() tea.Cmd {
	if !m.ev.DecisionsOnly() || m.selected == "" {
		return nil
	}
	return customCmd(m.opt.Layout, m.selected)
}

func (m *Model) showEvents() {
	if m.ev.All() {
		m.ev.SetEvents("", m.st.AllEvents())
	} else {
		m.ev.SetEvents(m.selected, m.st.Events(m.selected))
	}
	if m.selected != "" {
		m.det.SetRecent(m.st.Events(m.selected), m.now())
	}
}
