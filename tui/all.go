package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/internal/projects"
	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/notify"
	"github.com/dylan-gluck/spcstr/tui/pane"
	"github.com/dylan-gluck/spcstr/tui/projlist"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

// spcstr tui --all: every project on the machine. A program of its own
// (allModel, with the projlist pane) lists the projects of the projects
// list (internal/projects) and of the session registry, each with its live
// and recent sessions; enter ends it with the chosen project, whose
// dashboard (the usual Model, with Options.Back) then runs until q brings
// the list back.

// AllOptions configures spcstr tui --all.
type AllOptions struct {
	// ProjectsPath and RegistryPath are the projects list and the session
	// registry (defaults: projects.Path and registry.Path with the
	// process environment).
	ProjectsPath, RegistryPath string
	// Home is shown as ~ in project paths ("" for none).
	Home string
	// PerProject is how many sessions are shown under a project besides
	// its live ones (default 3).
	PerProject int
	// Project is the options of an opened project's dashboard (its
	// Layout, RegistryPath and Back are set for it).
	Project Options
	// Refresh is how often the list is read again (default 3 s; 0 in
	// tests that drive it).
	Refresh time.Duration
	Now     func() time.Time
	Alive   func(pid int) bool
}

func (o *AllOptions) defaults() {
	if o.ProjectsPath == "" {
		o.ProjectsPath = projects.Path(os.Getenv)
	}
	if o.RegistryPath == "" {
		o.RegistryPath = registry.Path(os.Getenv)
	}
	if o.PerProject <= 0 {
		o.PerProject = 3
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Alive == nil {
		o.Alive = registry.Alive
	}
}

// RunAll shows every project until the user quits; enter opens a
// project's dashboard, and q there comes back to the list.
func RunAll(ctx context.Context, opt AllOptions, in io.Reader, out io.Writer) error {
	opt.defaults()
	if opt.Refresh == 0 {
		opt.Refresh = 3 * time.Second
	}
	cache := &projCache{}
	selected := ""
	// Notifications (--notify) for every project while the list shows;
	// an opened project's dashboard sends its own.
	notices := &allNotices{tracker: &notify.Tracker{}, inTmux: os.Getenv("TMUX") != ""}
	notices.method, _ = notify.Choose("", nil, os.Getenv)
	for {
		m := newAllModel(opt, cache)
		m.notices = notices
		m.list.Select(selected)
		final, err := runProgram(ctx, m, opt.Project.NoColor, in, out)
		if err != nil {
			return err
		}
		am, _ := final.(allModel)
		if am.open == "" || ctx.Err() != nil {
			return nil
		}
		selected = am.open
		po := opt.Project
		po.Layout = state.Layout{Root: am.open}
		po.RegistryPath = opt.RegistryPath
		po.Back = true
		back, err := run(ctx, po, in, out)
		if err != nil || !back {
			return err
		}
	}
}

func runProgram(ctx context.Context, m tea.Model, noColor bool, in io.Reader, out io.Writer) (tea.Model, error) {
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(FrameRate)}
	if in != nil {
		popts = append(popts, tea.WithInput(in))
	}
	if out != nil {
		popts = append(popts, tea.WithOutput(out))
	}
	stdout := out == nil || out == io.Writer(os.Stdout)
	// Lip Gloss detected stdout's colours when it was linked in (its
	// package Writer): asking Bubble Tea to detect them again would run a
	// second "tmux info" inside tmux, a few ms at start.
	profile := lipgloss.Writer.Profile
	if noColor {
		profile = colorprofile.ASCII
	}
	if noColor || stdout {
		popts = append(popts, tea.WithColorProfile(profile))
	}
	if stdout {
		// The first frame now, not on Bubble Tea's first tick (firstframe.go).
		var painted *paintedOutput
		if m, painted = paintFirst(os.Stdout, m, profile); painted != nil {
			popts = append(popts, tea.WithOutput(painted))
			defer painted.undo()
		}
	}
	final, err := tea.NewProgram(m, popts...).Run()
	if err != nil && ctx.Err() != nil {
		return final, nil
	}
	if err != nil {
		return final, fmt.Errorf("dashboard: %w", err)
	}
	return final, nil
}

// allModel is the program of spcstr tui --all.
type allModel struct {
	opt    AllOptions
	cache  *projCache
	styles *theme.Styles
	list   *projlist.Model
	help   help.Model
	quit   key.Binding
	width  int
	height int
	live   int
	open   string // the project chosen with enter
	// notices tracks the sessions of every project for --notify.
	notices *allNotices
}

// allNotices is what --all keeps between its programs for notifications.
type allNotices struct {
	tracker *notify.Tracker
	method  notify.Method
	inTmux  bool
}

// notify returns the commands that deliver the notices of the groups
// just read (none without --notify).
func (m allModel) notify(groups []projlist.Group) []tea.Cmd {
	if m.notices == nil {
		return nil
	}
	var cmds []tea.Cmd
	for _, g := range groups {
		rows := make([]notify.Row, 0, len(g.Sessions))
		for _, s := range g.Sessions {
			if s.Loaded {
				rows = append(rows, notify.Row{ID: s.ID, Title: s.Title, Display: s.Display, Asks: s.Asks})
			}
		}
		for _, n := range m.notices.tracker.Observe(g.Path, rows, m.opt.Now()) {
			if m.opt.Project.Notify {
				n.Title = g.Name + ": " + n.Title
				cmds = append(cmds, notifyCmd(context.Background(), state.Layout{Root: g.Path}, n, m.notices.method, m.notices.inTmux))
			}
		}
	}
	return cmds
}

func newAllModel(opt AllOptions, cache *projCache) allModel {
	st := theme.New(true, opt.Project.NoColor)
	m := allModel{
		opt: opt, cache: cache, styles: st,
		list: projlist.New(st, opt.Now, opt.Home), help: help.New(),
		quit: key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
	m.help.Styles = st.Help
	return m
}

type (
	allLoadedMsg struct{ groups []projlist.Group }
	allTickMsg   struct{}
)

func (m allModel) load() tea.Cmd {
	opt, cache := m.opt, m.cache
	return func() tea.Msg { return allLoadedMsg{cache.load(opt)} }
}

// Init reads the projects.
func (m allModel) Init() tea.Cmd { return tea.Batch(tea.RequestBackgroundColor, m.load()) }

// Update handles the projects read, the clock, keys and resizes.
func (m allModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.list.SetSize(m.width, max(m.height-2, 1))
	case tea.BackgroundColorMsg:
		m.styles = theme.New(msg.IsDark(), m.opt.Project.NoColor)
		m.list.SetStyles(m.styles)
		m.help.Styles = m.styles.Help
	case allLoadedMsg:
		m.list.SetGroups(msg.groups)
		m.live = 0
		for _, g := range msg.groups {
			m.live += g.Live
		}
		cmds := m.notify(msg.groups)
		if m.opt.Refresh > 0 {
			cmds = append(cmds, tea.Tick(m.opt.Refresh, func(time.Time) tea.Msg { return allTickMsg{} }))
		}
		return m, tea.Batch(cmds...)
	case notifyRawMsg:
		return m, tea.Raw(msg.seq)
	case allTickMsg:
		return m, m.load()
	case projlist.OpenMsg:
		m.open = msg.Path
		return m, tea.Quit
	case tea.KeyPressMsg:
		if key.Matches(msg, m.quit) {
			return m, tea.Quit
		}
		return m, m.list.Update(msg)
	case tea.MouseWheelMsg:
		d := 1
		if msg.Button == tea.MouseWheelUp {
			d = -1
		}
		m.list.Scroll(pane.Move{Lines: d})
	}
	return m, nil
}

// View draws the header, the projects and the keys.
func (m allModel) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "spcstr · all projects"
	return v
}

// Render draws the program as a string.
func (m allModel) Render() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	st := m.styles
	title := st.Title.Render("spcstr") + " " + st.Info.Render("all projects")
	// No count before the projects are read: "0 projects" would be wrong.
	right := st.Faint.Render("reading…")
	if m.list.Loaded() {
		right = st.Subtle.Render(text.Plural(m.list.Len(), "project"))
	}
	if c := costLabel(m.list.Totals()); c != "" && m.width >= 80 {
		right = st.Subtle.Render(c) + " " + right
	}
	if m.live > 0 {
		right += " " + st.Working.Render(fmt.Sprintf("%d live", m.live))
	}
	footer := m.help.ShortHelpView(append(m.list.ShortHelp(), m.quit))
	return strings.Join([]string{
		text.Right(title, " "+right, m.width),
		m.list.View(),
		text.Fit(footer, m.width),
	}, "\n")
}

// projCache keeps each project's groups between reads, so that a refresh
// reads again only the projects that may have changed: those with a live
// session, and those whose sessions folder changed.
type projCache struct {
	mu    sync.Mutex
	seen  map[string]cachedProject
	usage map[string]sessionUsage // by project root and session id (allcost.go)
}

type cachedProject struct {
	mod   time.Time // the sessions folder's
	group projlist.Group
}

// load reads the projects list and the registry, and each project that
// may have changed.
func (c *projCache) load(opt AllOptions) []projlist.Group {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string]cachedProject{}
	}
	reg := registry.Load(opt.RegistryPath)
	alive := map[int]bool{}
	isAlive := func(pid int) bool {
		v, ok := alive[pid]
		if !ok {
			v = opt.Alive(pid)
			alive[pid] = v
		}
		return v
	}
	liveIn := map[string]int{}
	for _, e := range reg.Sessions {
		if e.ProjectDir != "" && (e.PPID <= 0 || isAlive(e.PPID)) {
			liveIn[filepath.Clean(e.ProjectDir)]++
		}
	}
	paths := map[string]bool{}
	for _, p := range projects.Load(opt.ProjectsPath) {
		paths[filepath.Clean(p.Path)] = true
	}
	for p := range liveIn {
		if filepath.IsAbs(p) && (state.Layout{Root: p}).Exists() {
			paths[p] = true
		}
	}
	var groups []projlist.Group
	for p := range paths {
		l := state.Layout{Root: p}
		var mod time.Time
		if fi, err := os.Stat(l.SessionsDir()); err == nil {
			mod = fi.ModTime()
		}
		if old, ok := c.seen[p]; ok && liveIn[p] == 0 && old.group.Live == 0 && old.mod.Equal(mod) {
			groups = append(groups, old.group)
			continue
		}
		g := readGroup(l, reg, isAlive, opt.PerProject, func(list []store.Listing) (pricing.Total, pricing.Total) {
			return c.projectCost(l, list, opt.Now())
		})
		g.Live = liveIn[p]
		c.seen[p] = cachedProject{mod: mod, group: g}
		groups = append(groups, g)
	}
	sort.Slice(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		if (a.Live > 0) != (b.Live > 0) {
			return a.Live > 0
		}
		if !a.LastAt.Equal(b.LastAt) {
			return a.LastAt.After(b.LastAt)
		}
		return a.Path < b.Path
	})
	return groups
}

// readGroup reads one project's newest sessions (perProject of them, plus
// every live one among the newest 50), and what all its sessions cost.
func readGroup(l state.Layout, reg registry.File, alive func(int) bool, perProject int, cost func([]store.Listing) (today, all pricing.Total)) projlist.Group {
	g := projlist.Group{Path: text.Sanitize(l.Root), Name: text.Sanitize(filepath.Base(l.Root))}
	list, err := store.ListSessions(l)
	if err != nil {
		return g
	}
	g.Total = len(list)
	g.Today, g.All = cost(list)
	var shown []projlist.Session
	for i, li := range list {
		if i >= 50 {
			break
		}
		e, registered := reg.Lookup(li.ID)
		live := registered && (e.PPID <= 0 || alive(e.PPID))
		if i >= perProject && !live {
			continue
		}
		sum, _ := store.LoadSession(l, li.ID, li.ModTime)
		shown = append(shown, projlist.Session{Summary: sum, Display: store.DisplayStatus(sum, reg, alive)})
	}
	sort.SliceStable(shown, func(i, j int) bool {
		a, b := isLive(shown[i].Display), isLive(shown[j].Display)
		if a != b {
			return a
		}
		return shown[i].LastAt.After(shown[j].LastAt)
	})
	g.Sessions = shown
	for _, s := range shown {
		if s.LastAt.After(g.LastAt) {
			g.LastAt = s.LastAt
		}
	}
	return g
}

func isLive(display string) bool {
	switch display {
	case store.StatusWorking, store.StatusIdle, store.StatusPermission, store.StatusQuestion, store.StatusFailed:
		return true
	}
	return false
}
