package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/data"
	"github.com/dylan-gluck/spcstr/tui/detail"
	"github.com/dylan-gluck/spcstr/tui/events"
	"github.com/dylan-gluck/spcstr/tui/feedback"
	"github.com/dylan-gluck/spcstr/tui/requirements"
	"github.com/dylan-gluck/spcstr/tui/sessions"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/theme"
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
// closed when the program ends).
type shared struct {
	mu      sync.Mutex
	watcher *watch.Watcher
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
}

// Model is the dashboard's root model.
type Model struct {
	ctx    context.Context
	opt    Options
	shared *shared
	keys   KeyMap
	styles *theme.Styles
	isDark bool

	list sessions.Model
	det  detail.Model
	ev   events.Model
	req  requirements.Model
	fb   feedback.Model
	help help.Model

	width, height int
	focus         Pane
	right         Pane // the pane beside the list in the wide layout
	showHelp      bool
	helpOffset    int
	follow        bool
	status        string
	statusUntil   time.Time

	sums     map[string]data.Summary
	reg      registry.File
	regOK    bool
	alive    map[int]bool
	selected string
	selState *state.Session
	// states keeps the full state of the sessions read most recently, so
	// that moving between live sessions shows them at once.
	states *stateCache

	offsets    data.Offsets
	tailBusy   bool
	tailAgain  map[string]bool
	ring       map[string][]data.Event
	all        []data.Event
	backfilled map[string]bool

	loadBusy    bool
	loadAgain   map[string]bool
	rescanAgain bool
	loading     int // sessions still to read at startup
	ready       bool
	watchErr    string
	watching    bool
	tailed      bool          // the startup tail has been read
	strategies  strategiesMsg // the last read of the strategies
	// tick is the clock's period (0: no clock; tests).
	tick time.Duration
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
		list: sessions.New(st), det: detail.New(st), ev: events.New(st),
		req: requirements.New(st, wired), fb: feedback.New(st), help: help.New(),
		focus: PaneSessions, right: PaneDetail, follow: true,
		sums: map[string]data.Summary{}, alive: map[int]bool{},
		offsets: data.Offsets{}, tailAgain: map[string]bool{}, ring: map[string][]data.Event{},
		backfilled: map[string]bool{}, loadAgain: map[string]bool{},
		tick: time.Second, states: newStateCache(16),
	}
	m.help.Styles = st.Help
	m.list.SetFocused(true)
	return m
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
	if !m.opt.NoWatch {
		cmds = append(cmds, watchStartCmd(watch.Options{
			Layout: m.opt.Layout, RegistryPath: m.opt.RegistryPath, RequirementsDir: m.opt.RequirementsDir,
		}))
	}
	return tea.Batch(cmds...)
}

// Ready reports whether the first full frame can be drawn: the session list
// and the newest sessions' states have been read.
func (m Model) Ready() bool { return m.ready }

func (m Model) now() time.Time { return m.opt.Now() }

func (m Model) wide() bool { return m.width >= WideWidth }

// Update handles messages: results of reads, changes from the watcher, keys,
// the mouse, resizes and the clock.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
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
		cmds = append(cmds, m.applyListing(msg.list)...)
	case summariesMsg:
		cmds = append(cmds, m.applySummaries(msg)...)
	case registryMsg:
		m.reg, m.regOK, m.alive = msg.reg, true, msg.alive
		m.rebuildRows()
		cmds = append(cmds, m.selectionChanged()...)
	case aliveMsg:
		m.alive = msg.alive
		m.rebuildRows()
	case tailMsg:
		cmds = append(cmds, m.applyTail(msg)...)
	case historyMsg:
		m.backfilled[msg.id] = true
		prefix := filepath.Clean(m.opt.Layout.Root) + string(filepath.Separator)
		for i := range msg.evs {
			msg.evs[i].Detail = strings.ReplaceAll(msg.evs[i].Detail, prefix, "")
		}
		m.ring[msg.id] = mergeEvents(msg.evs, m.ring[msg.id], ringSize)
		m.showEvents()
	case reqMsg:
		if msg.id == m.selected {
			m.req.SetView(msg.view)
		}
	case feedbackMsg:
		if msg.id == m.selected {
			m.fb.SetView(msg.view)
		}
	case requirements.ActionMsg:
		cmds = append(cmds, m.runAction(msg))
	case actionDoneMsg:
		if msg.err != nil {
			m.flash(msg.err.Error())
		} else {
			m.flash(msg.text)
			cmds = append(cmds, m.loadReq())
		}
	case watchStartedMsg:
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
		}
		m.det.Refresh(m.now())
		if m.tick > 0 {
			cmds = append(cmds, tickCmd(m.tick))
		}
		if m.regOK {
			cmds = append(cmds, aliveCmd(m.reg, m.opt.Alive))
		}
	}
	return m, tea.Batch(cmds...)
}

func (m *Model) setStyles(st *theme.Styles) {
	m.styles = st
	m.list.SetStyles(st)
	m.det.SetStyles(st)
	m.ev.SetStyles(st)
	m.req.SetStyles(st)
	m.fb.SetStyles(st)
	m.help.Styles = st.Help
	m.det.Refresh(m.now())
}

func (m *Model) flash(s string) {
	m.status = s
	m.statusUntil = m.now().Add(5 * time.Second)
}

// applyListing merges the folders found on disk into the summaries and
// starts reading the states not read yet (newest first, in chunks).
func (m *Model) applyListing(list []data.Listing) []tea.Cmd {
	seen := make(map[string]bool, len(list))
	var unread []data.Listing
	for _, li := range list {
		seen[li.ID] = true
		if _, ok := m.sums[li.ID]; !ok {
			m.sums[li.ID] = data.Summary{ID: li.ID, LastAt: li.ModTime}
			unread = append(unread, li)
		}
	}
	for id := range m.sums {
		if !seen[id] {
			delete(m.sums, id)
			delete(m.ring, id)
		}
	}
	m.rebuildRows()
	if len(unread) == 0 {
		m.ready = true
		return m.selectionChanged()
	}
	first, rest := unread, []data.Listing(nil)
	if !m.ready && len(unread) > firstChunk {
		first, rest = unread[:firstChunk], unread[firstChunk:]
	}
	m.loading += len(first)
	return []tea.Cmd{summariesCmd(m.opt.Layout, first, m.selectedOrNewest(first), rest, true, false)}
}

func (m *Model) selectedOrNewest(list []data.Listing) string {
	if m.selected != "" {
		return m.selected
	}
	if len(list) > 0 {
		return list[0].ID
	}
	return ""
}

func (m *Model) applySummaries(msg summariesMsg) []tea.Cmd {
	var cmds []tea.Cmd
	for _, s := range msg.sums {
		m.sums[s.ID] = s
	}
	for id, st := range msg.states {
		m.states.put(id, st)
	}
	if msg.startup {
		m.loading = max(m.loading-len(msg.sums), 0)
	}
	m.ready = true
	m.rebuildRows()
	cmds = append(cmds, m.selectionChanged()...)
	if st, ok := msg.states[m.selected]; ok && m.selected != "" {
		m.selState = st
		m.showDetail()
	}
	if len(msg.next) > 0 {
		n := min(chunk, len(msg.next))
		m.loading += n
		cmds = append(cmds, summariesCmd(m.opt.Layout, msg.next[:n], m.selected, msg.next[n:], true, false))
	}
	if msg.queued {
		m.loadBusy = false
		if len(m.loadAgain) > 0 || m.rescanAgain {
			cmds = append(cmds, m.loadSessions(nil, false)...)
		}
	}
	return cmds
}

// loadSessions rereads the given sessions' state (one read each), or
// queues them while a read is running so that results never go backwards.
func (m *Model) loadSessions(ids []string, rescan bool) []tea.Cmd {
	for _, id := range ids {
		m.loadAgain[id] = true
	}
	m.rescanAgain = m.rescanAgain || rescan
	if m.loadBusy {
		return nil
	}
	var cmds []tea.Cmd
	if m.rescanAgain {
		m.rescanAgain = false
		cmds = append(cmds, listingCmd(m.opt.Layout))
	}
	if len(m.loadAgain) == 0 {
		return cmds
	}
	list := make([]data.Listing, 0, len(m.loadAgain))
	for id := range m.loadAgain {
		if !state.ValidSessionID(id) {
			continue
		}
		list = append(list, data.Listing{ID: id, ModTime: m.sums[id].LastAt})
	}
	m.loadAgain = map[string]bool{}
	m.loadBusy = true
	// Changed sessions are the live ones: keep their whole state.
	return append(cmds, summariesCmd(m.opt.Layout, list, "*", nil, false, true))
}

func (m *Model) applyChange(c watch.Change) []tea.Cmd {
	var cmds []tea.Cmd
	if c.Err != nil {
		m.flash("watcher: " + c.Err.Error())
	}
	ids := make([]string, 0, len(c.Sessions))
	for id := range c.Sessions {
		ids = append(ids, id)
		if _, ok := m.sums[id]; !ok {
			m.sums[id] = data.Summary{ID: id, LastAt: m.now()}
		}
	}
	if len(ids) > 0 || c.Rescan {
		m.rebuildRows()
		cmds = append(cmds, m.loadSessions(ids, c.Rescan)...)
	}
	if len(c.Logs) > 0 {
		for p := range c.Logs {
			m.tailAgain[p] = true
		}
		cmds = append(cmds, m.tailMore()...)
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

func (m *Model) tailMore() []tea.Cmd {
	if m.tailBusy || len(m.tailAgain) == 0 {
		return nil
	}
	paths := make([]string, 0, len(m.tailAgain))
	offs := data.Offsets{}
	for p := range m.tailAgain {
		paths = append(paths, p)
		if o, ok := m.offsets[p]; ok {
			offs[p] = o
		}
	}
	m.tailAgain = map[string]bool{}
	m.tailBusy = true
	return []tea.Cmd{tailCmd(paths, offs)}
}

func (m *Model) applyTail(msg tailMsg) []tea.Cmd {
	for p, o := range msg.offsets {
		m.offsets[p] = o
	}
	byID := map[string][]data.Event{}
	prefix := filepath.Clean(m.opt.Layout.Root) + string(filepath.Separator)
	for i := range msg.evs {
		msg.evs[i].Detail = strings.ReplaceAll(msg.evs[i].Detail, prefix, "")
	}
	for _, e := range msg.evs {
		byID[e.Session] = append(byID[e.Session], e)
	}
	for id, evs := range byID {
		m.ring[id] = mergeEvents(m.ring[id], evs, ringSize)
	}
	m.all = mergeEvents(m.all, msg.evs, allSize)
	m.showEvents()
	if msg.initial {
		m.tailed = true
		return m.historyIfNeeded()
	}
	m.tailBusy = false
	return m.tailMore()
}

// mergeEvents appends b to a (both oldest first), orders them and keeps the
// newest n.
func mergeEvents(a, b []data.Event, n int) []data.Event {
	out := make([]data.Event, 0, len(a)+len(b))
	out = append(out, a...)
	out = append(out, b...)
	if len(a) > 0 && len(b) > 0 && !b[0].At.After(a[len(a)-1].At) {
		out = dedupe(out)
		data.SortEvents(out)
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// dedupe drops repeated events (the same entry read by the startup tail and
// by a history search).
func dedupe(evs []data.Event) []data.Event {
	seen := make(map[data.Event]bool, len(evs))
	out := evs[:0]
	for _, e := range evs {
		if seen[e] {
			continue
		}
		seen[e] = true
		out = append(out, e)
	}
	return out
}

// rebuildRows recomputes the list rows from the summaries and the
// registry, and follows the newest session when asked to.
func (m *Model) rebuildRows() {
	rows := make([]sessions.Row, 0, len(m.sums))
	alive := func(pid int) bool { return m.alive[pid] }
	for _, s := range m.sums {
		d := data.StatusUnknown
		if s.Loaded {
			d = data.DisplayStatus(s, m.reg, alive)
		}
		rows = append(rows, sessions.Row{Summary: s, Display: d})
	}
	m.list.SetRows(rows)
	if m.follow {
		m.list.SelectNewest()
	}
	if r, ok := m.list.Selected(); ok && r.ID == m.selected {
		m.det.SetRow(r, m.now())
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
	m.selState = m.states.get(id)
	m.showDetail()
	m.showEvents()
	cmds := []tea.Cmd{m.loadReq(), m.loadFeedback()}
	sum := m.sums[id]
	cmds = append(cmds, summariesCmd(m.opt.Layout, []data.Listing{{ID: id, ModTime: sum.LastAt}}, id, nil, false, false))
	cmds = append(cmds, m.historyIfNeeded()...)
	return cmds
}

// historyIfNeeded looks further back in the logs for the selected session
// when the startup tail held few of its events (once per session, and only
// after the startup tail was read).
func (m *Model) historyIfNeeded() []tea.Cmd {
	id := m.selected
	if id == "" || !m.tailed || m.backfilled[id] || len(m.ring[id]) >= historyWant {
		return nil
	}
	m.backfilled[id] = true
	return []tea.Cmd{historyCmd(m.opt.Layout, id)}
}

func (m *Model) showDetail() {
	r, ok := m.list.Selected()
	if !ok {
		m.det.Clear()
		return
	}
	m.det.SetSession(r, m.selState, m.now())
	m.det.SetRecent(m.ring[r.ID], m.now())
}

func (m *Model) showEvents() {
	if m.ev.All() {
		m.ev.SetEvents("", m.all)
	} else {
		m.ev.SetEvents(m.selected, m.ring[m.selected])
	}
	if m.selected != "" {
		m.det.SetRecent(m.ring[m.selected], m.now())
	}
}

func (m *Model) reqRequest() requirements.Request {
	r := requirements.Request{Root: m.opt.Layout.Root, SessionID: m.selected}
	if s, ok := m.sums[m.selected]; ok {
		r.Branch = s.Branch
	}
	return r
}

func (m *Model) loadReq() tea.Cmd {
	return reqCmd(m.ctx, m.opt.Requirements, m.reqRequest())
}

func (m *Model) loadFeedback() tea.Cmd {
	return feedbackCmd(m.ctx, m.opt.Feedback, feedback.Request{Root: m.opt.Layout.Root, SessionID: m.selected})
}

func (m *Model) runAction(a requirements.ActionMsg) tea.Cmd {
	var act requirements.Action
	var done string
	switch a.Kind {
	case "satisfy-session":
		act, done = m.opt.ReqActions.SatisfySession, "satisfied for this session: "+a.Name
	case "satisfy-branch":
		act, done = m.opt.ReqActions.SatisfyBranch, "satisfied for the branch: "+a.Name
	case "clear":
		act, done = m.opt.ReqActions.Clear, "cleared: "+a.Name
	}
	if act == nil {
		m.flash("satisfy and clear are " + requirements.ComingSoon)
		return nil
	}
	if a.Name == "" {
		m.flash("no requirement selected")
		return nil
	}
	return actionCmd(m.ctx, act, m.reqRequest(), a.Name, done)
}

// handleKey routes a key: help first, then the filter being typed, then
// global keys, then the focused pane.
func (m Model) handleKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if m.showHelp {
		switch {
		case key.Matches(k, m.keys.Quit) && k.String() == "ctrl+c":
			return m, tea.Quit
		case k.String() == "up" || k.String() == "k":
			m.helpOffset = max(m.helpOffset-1, 0)
		case k.String() == "down" || k.String() == "j":
			m.helpOffset++
		case k.String() == "pgdown" || k.String() == "space":
			m.helpOffset += max(m.bodyHeight()-1, 1)
		case k.String() == "pgup":
			m.helpOffset = max(m.helpOffset-m.bodyHeight()+1, 0)
		case key.Matches(k, m.keys.Quit):
			return m, tea.Quit
		default:
			m.showHelp = false
		}
		return m, nil
	}
	if m.focus == PaneSessions && m.list.Editing() {
		if k.String() == "ctrl+c" {
			return m, tea.Quit
		}
		var cmd tea.Cmd
		m.list, cmd = m.list.Update(k)
		m.follow = false
		return m, tea.Batch(append(m.selectionChanged(), cmd)...)
	}
	switch {
	case key.Matches(k, m.keys.Quit):
		return m, tea.Quit
	case key.Matches(k, m.keys.Help):
		m.showHelp, m.helpOffset = true, 0
		return m, nil
	case key.Matches(k, m.keys.Follow):
		m.follow = !m.follow
		if m.follow {
			m.list.SelectNewest()
			m.flash("following the newest session")
		} else {
			m.flash("follow off")
		}
		return m, tea.Batch(m.selectionChanged()...)
	case key.Matches(k, m.keys.PrevSession), key.Matches(k, m.keys.NextSession):
		d := 1
		if key.Matches(k, m.keys.PrevSession) {
			d = -1
		}
		m.list.Move(d)
		m.follow = false
		return m, tea.Batch(m.selectionChanged()...)
	case key.Matches(k, m.keys.Pane1):
		m.setFocus(PaneSessions)
		return m, nil
	case key.Matches(k, m.keys.Pane2):
		m.setFocus(PaneDetail)
		return m, nil
	case key.Matches(k, m.keys.Pane3):
		m.setFocus(PaneEvents)
		return m, nil
	case key.Matches(k, m.keys.Pane4):
		m.setFocus(PaneRequirements)
		return m, nil
	case key.Matches(k, m.keys.Pane5):
		m.setFocus(PaneFeedback)
		return m, nil
	case key.Matches(k, m.keys.NextPane):
		m.setFocus((m.focus + 1) % paneCount)
		return m, nil
	case key.Matches(k, m.keys.PrevPane):
		m.setFocus((m.focus + paneCount - 1) % paneCount)
		return m, nil
	case key.Matches(k, m.keys.Open) && m.focus == PaneSessions:
		m.setFocus(PaneDetail)
		return m, nil
	case key.Matches(k, m.keys.Back) && m.focus != PaneSessions:
		m.setFocus(PaneSessions)
		return m, nil
	}
	var cmd tea.Cmd
	switch m.focus {
	case PaneSessions:
		before := m.currentID()
		m.list, cmd = m.list.Update(k)
		if m.currentID() != before || m.list.Editing() {
			m.follow = false
		}
		return m, tea.Batch(append(m.selectionChanged(), cmd)...)
	case PaneDetail:
		m.det, cmd = m.det.Update(k)
	case PaneEvents:
		all := m.ev.All()
		m.ev, cmd = m.ev.Update(k)
		if m.ev.All() != all {
			m.showEvents()
		}
	case PaneRequirements:
		m.req, cmd = m.req.Update(k)
	case PaneFeedback:
		switch k.String() {
		case "up", "k":
			m.fb.Scroll(-1)
		case "down", "j":
			m.fb.Scroll(1)
		}
	}
	return m, cmd
}

func (m *Model) setFocus(p Pane) {
	m.focus = p
	if p != PaneSessions {
		m.right = p
	}
	m.list.SetFocused(p == PaneSessions)
	m.layout()
}

func (m Model) handleWheel(msg tea.MouseWheelMsg) (tea.Model, tea.Cmd) {
	mo := msg.Mouse()
	d := 0
	switch mo.Button {
	case tea.MouseWheelUp:
		d = -1
	case tea.MouseWheelDown:
		d = 1
	default:
		return m, nil
	}
	if m.showHelp {
		m.helpOffset = max(m.helpOffset+d*3, 0)
		return m, nil
	}
	target := m.focus
	if m.wide() {
		if mo.X < m.listWidth() {
			target = PaneSessions
		} else {
			target = m.right
		}
	}
	switch target {
	case PaneSessions:
		m.list.Move(d)
		m.follow = false
		return m, tea.Batch(m.selectionChanged()...)
	case PaneDetail:
		m.det.Scroll(d * 3)
	case PaneEvents:
		m.ev.Scroll(d * 3)
	case PaneRequirements:
		m.req.Scroll(d)
	case PaneFeedback:
		m.fb.Scroll(d * 3)
	}
	return m, nil
}

func (m Model) handleClick(msg tea.MouseClickMsg) (tea.Model, tea.Cmd) {
	mo := msg.Mouse()
	if mo.Button != tea.MouseLeft || m.showHelp {
		return m, nil
	}
	top := 2 // header and tab lines
	if mo.Y == 1 {
		// a tab
		if p, ok := m.tabAt(mo.X); ok {
			m.setFocus(p)
		}
		return m, nil
	}
	inList := m.focus == PaneSessions || m.wide() && mo.X < m.listWidth()
	if inList && m.list.ClickRow(mo.Y-top) {
		m.follow = false
		m.setFocus(PaneSessions)
		return m, tea.Batch(m.selectionChanged()...)
	}
	if m.wide() && mo.X >= m.listWidth() {
		m.setFocus(m.right)
	}
	return m, nil
}

// Layout.

func (m Model) bodyHeight() int { return max(m.height-3, 1) }

func (m Model) listWidth() int {
	if !m.wide() {
		return m.width
	}
	return min(max(m.width*2/5, 36), 56)
}

// splitEvents reports the height of the event tail under the detail in the
// wide layout (0: no split).
func (m Model) splitEvents() int {
	if !m.wide() || m.right != PaneDetail || m.bodyHeight() < 30 {
		return 0
	}
	return min(14, m.bodyHeight()/3)
}

func (m *Model) layout() {
	if m.width <= 0 || m.height <= 0 {
		return
	}
	bh := m.bodyHeight()
	if m.wide() {
		lw := m.listWidth()
		rw := m.width - lw - 1
		m.list.SetSize(lw, bh)
		if ev := m.splitEvents(); ev > 0 {
			m.det.SetSize(rw, bh-ev-1)
			m.ev.SetSize(rw, ev)
		} else {
			m.det.SetSize(rw, bh)
			m.ev.SetSize(rw, bh)
		}
		m.req.SetSize(rw, bh)
		m.fb.SetSize(rw, bh)
	} else {
		m.list.SetSize(m.width, bh)
		m.det.SetSize(m.width, bh)
		m.ev.SetSize(m.width, bh)
		m.req.SetSize(m.width, bh)
		m.fb.SetSize(m.width, bh)
	}
	m.help.SetWidth(m.width)
	m.det.Refresh(m.now())
}

func (m Model) tabPanes() []Pane {
	if m.wide() {
		return []Pane{PaneDetail, PaneEvents, PaneRequirements, PaneFeedback}
	}
	return []Pane{PaneSessions, PaneDetail, PaneEvents, PaneRequirements, PaneFeedback}
}

func (m Model) tabAt(x int) (Pane, bool) {
	pos := 0
	if m.wide() {
		pos = m.listWidth() + 1
	}
	for _, p := range m.tabPanes() {
		w := text.Width(paneNames[p]) + 2
		if x >= pos && x < pos+w {
			return p, true
		}
		pos += w
	}
	return 0, false
}

func (m Model) tabs(active Pane, w int) string {
	var b strings.Builder
	for _, p := range m.tabPanes() {
		label := " " + paneNames[p] + " "
		if p == active {
			b.WriteString(m.styles.TabActive.Render(label))
		} else {
			b.WriteString(m.styles.Tab.Render(label))
		}
	}
	return text.Fit(b.String(), w)
}

// View draws the dashboard.
func (m Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	// The folder name is the repository's choice: never raw escapes in
	// the title (an OSC 52 there writes the clipboard).
	v.WindowTitle = termtext.Line("spcstr · " + filepath.Base(m.opt.Layout.Root))
	return v
}

// Render draws the dashboard as a string (the View's content).
func (m Model) Render() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	st := m.styles
	w := m.width
	now := m.now()
	lines := []string{m.header()}
	if m.showHelp {
		lines = append(lines, text.Fit(st.Section.Render("Keys")+st.Faint.Render("  (any key closes, j/k scroll)"), w))
		lines = append(lines, m.helpView(m.bodyHeight())...)
		lines = append(lines, m.footer())
		return strings.Join(lines, "\n")
	}
	bh := m.bodyHeight()
	if m.wide() {
		lw := m.listWidth()
		rw := w - lw - 1
		listTitle := st.Section.Render("Sessions")
		if m.focus == PaneSessions {
			listTitle = st.TabActive.Render(" Sessions ")
		}
		lines = append(lines, text.Fit(listTitle, lw)+st.Faint.Render("│")+m.tabs(m.rightActive(), rw))
		left := strings.Split(m.list.View(now), "\n")
		right := strings.Split(m.rightView(), "\n")
		sep := st.Faint.Render("│")
		for i := 0; i < bh; i++ {
			l, r := "", ""
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			lines = append(lines, text.Fit(l, lw)+sep+text.Fit(r, rw))
		}
	} else {
		lines = append(lines, m.tabs(m.focus, w))
		var body string
		switch m.focus {
		case PaneSessions:
			body = m.list.View(now)
		default:
			body = m.paneView(m.focus)
		}
		bl := strings.Split(body, "\n")
		for i := 0; i < bh; i++ {
			l := ""
			if i < len(bl) {
				l = bl[i]
			}
			lines = append(lines, text.Fit(l, w))
		}
	}
	lines = append(lines, m.footer())
	return strings.Join(lines, "\n")
}

func (m Model) rightActive() Pane {
	if m.focus == PaneSessions {
		return m.right
	}
	return m.focus
}

func (m Model) rightView() string {
	p := m.rightActive()
	if p == PaneDetail {
		if ev := m.splitEvents(); ev > 0 {
			rw := m.width - m.listWidth() - 1
			return m.det.View() + "\n" + m.styles.Faint.Render(strings.Repeat("─", rw)) + "\n" + m.ev.View()
		}
	}
	return m.paneView(p)
}

func (m Model) paneView(p Pane) string {
	switch p {
	case PaneDetail:
		if m.selected == "" {
			return m.styles.Subtle.Render(" No session selected.")
		}
		return m.det.View()
	case PaneEvents:
		return m.ev.View()
	case PaneRequirements:
		return m.req.View()
	case PaneFeedback:
		return m.fb.View()
	}
	return ""
}

func (m Model) header() string {
	st := m.styles
	title := st.Title.Render("spcstr")
	if m.opt.Title != "" {
		title += " " + st.Info.Render(m.opt.Title)
	}
	if m.width >= 60 {
		title += " " + st.Subtle.Render(text.Sanitize(filepath.Base(m.opt.Layout.Root)))
	}
	live := 0
	for _, s := range m.sums {
		if s.Loaded && (s.Status == data.StatusWorking || s.Status == data.StatusNeedsInput) {
			live++
		}
	}
	shown, total := m.list.Len()
	count := fmt.Sprintf("%d sessions", total)
	if shown != total {
		count = fmt.Sprintf("%d/%d sessions", shown, total)
	}
	right := st.Subtle.Render(count)
	if live > 0 {
		right += " " + st.Working.Render(fmt.Sprintf("%d live", live))
	}
	if m.loading > 0 {
		right += " " + st.Faint.Render("reading…")
	}
	if m.follow {
		right += " " + st.Info.Render("⇣follow")
	}
	if !m.watching && !m.opt.NoWatch {
		right += " " + st.Warn.Render("◌")
	}
	// The strategies go after the title when they fit beside the rest,
	// else their count; never wrapped.
	for _, s := range m.strategyLabels() {
		if text.Width(title)+1+text.Width(s)+1+text.Width(right) <= m.width {
			title += " " + s
			break
		}
	}
	return text.Right(title, " "+right, m.width)
}

// strategyLabels are the header's strategy labels, longest first (none
// when no strategy is enabled).
func (m Model) strategyLabels() []string {
	st := m.styles
	s := m.strategies
	if s.conflict {
		return []string{st.Warn.Render("strategies: conflict (not enforced)"), st.Warn.Render("strategies: conflict")}
	}
	if len(s.active) == 0 {
		return nil
	}
	names := make([]string, 0, len(s.active))
	dry := 0
	for _, a := range s.active {
		n := text.Sanitize(a.Name)
		if a.DryRun || s.dryRun {
			n += " (dry run)"
			dry++
		}
		names = append(names, n)
	}
	count := fmt.Sprintf("%d strategies", len(names))
	if len(names) == 1 {
		count = "1 strategy"
	}
	if dry > 0 {
		count += fmt.Sprintf(" (%d dry run)", dry)
	}
	return []string{st.Subtle.Render("strategies: " + strings.Join(names, ", ")), st.Subtle.Render(count)}
}

func (m Model) footer() string {
	st := m.styles
	if m.status != "" {
		return text.Fit(st.Warn.Render(text.Sanitize(m.status)), m.width)
	}
	var ks []key.Binding
	switch {
	case m.showHelp:
		ks = []key.Binding{m.keys.Quit}
	case m.focus == PaneSessions && m.list.Editing():
		ks = []key.Binding{m.list.Keys.AcceptFilter, m.list.Keys.ClearFilter}
	case m.focus == PaneSessions:
		ks = []key.Binding{m.list.Keys.Down, m.keys.Open, m.list.Keys.Filter, m.keys.Follow, m.keys.Help, m.keys.Quit}
	case m.focus == PaneRequirements:
		ks = append(m.req.Keys.ShortHelp(), m.keys.Back, m.keys.Help, m.keys.Quit)
	case m.focus == PaneEvents:
		ks = append(m.ev.Keys.ShortHelp(), m.keys.Back, m.keys.Help, m.keys.Quit)
	default:
		ks = []key.Binding{m.keys.NextSession, m.keys.NextPane, m.keys.Back, m.keys.Help, m.keys.Quit}
	}
	// Short help without the long "coming with" suffixes.
	short := make([]key.Binding, 0, len(ks))
	for _, b := range ks {
		d := strings.TrimSuffix(b.Help().Desc, " ("+requirements.ComingSoon+")")
		short = append(short, key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, d)))
	}
	return text.Fit(m.help.ShortHelpView(short), m.width)
}

type helpGroup struct {
	title string
	keys  []key.Binding
}

func (m Model) helpGroups() []helpGroup {
	g := m.keys
	l := m.list.Keys
	d := m.det.Keys
	e := m.ev.Keys
	r := m.req.Keys
	return []helpGroup{
		{"Everywhere", []key.Binding{g.Help, g.Quit, g.NextPane, g.PrevPane, g.Pane1, g.Pane2, g.Pane3, g.Pane4, g.Pane5, g.Back, g.Follow, g.PrevSession, g.NextSession}},
		{"Sessions", []key.Binding{l.Up, l.Down, l.PageUp, l.PageDown, l.Top, l.Bottom, g.Open, l.Filter, l.AcceptFilter, l.ClearFilter}},
		{"Detail", []key.Binding{d.Up, d.Down, d.PageUp, d.PageDown, d.Top, d.Bottom}},
		{"Events", []key.Binding{e.Up, e.Down, e.PageUp, e.PageDown, e.Top, e.Bottom, e.All, e.Decisions}},
		{"Requirements", []key.Binding{r.Up, r.Down, r.SatisfySession, r.SatisfyBranch, r.Clear}},
		{"Mouse", []key.Binding{
			key.NewBinding(key.WithHelp("wheel", "scroll the pane under the pointer")),
			key.NewBinding(key.WithHelp("click", "select a session or a tab")),
		}},
	}
}

func (m Model) helpView(h int) []string {
	st := m.styles
	w := m.width
	var lines []string
	for _, g := range m.helpGroups() {
		lines = append(lines, text.Fit(st.Section.Render(g.title), w))
		kw := 0
		for _, b := range g.keys {
			kw = max(kw, text.Width(b.Help().Key))
		}
		kw = min(kw, 12)
		for _, b := range g.keys {
			desc := text.Wrap(b.Help().Desc, max(w-kw-3, 10))
			for i, dl := range desc {
				k := strings.Repeat(" ", kw)
				if i == 0 {
					k = text.Fit(b.Help().Key, kw)
				}
				lines = append(lines, text.Fit(" "+st.Key.Render(k)+"  "+st.Subtle.Render(dl), w))
			}
		}
		lines = append(lines, "")
	}
	off := min(m.helpOffset, max(len(lines)-h, 0))
	lines = lines[off:]
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, strings.Repeat(" ", w))
	}
	return lines
}

// sortedIDs is used by tests.
func (m Model) sortedIDs() []string {
	ids := make([]string, 0, len(m.sums))
	for id := range m.sums {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// stateCache is a small most-recently-used cache of full session states.
type stateCache struct {
	max   int
	order []string
	m     map[string]*state.Session
}

func newStateCache(n int) *stateCache { return &stateCache{max: n, m: map[string]*state.Session{}} }

func (c *stateCache) get(id string) *state.Session { return c.m[id] }

func (c *stateCache) put(id string, s *state.Session) {
	if s == nil {
		delete(c.m, id)
		return
	}
	if _, ok := c.m[id]; ok {
		for i, o := range c.order {
			if o == id {
				c.order = append(c.order[:i], c.order[i+1:]...)
				break
			}
		}
	}
	c.m[id] = s
	c.order = append(c.order, id)
	for len(c.order) > c.max {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
}
