package tui

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/focus"
	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/internal/strategy"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/loop"
	"github.com/dylan-gluck/spcstr/tui/notify"
	"github.com/dylan-gluck/spcstr/tui/reqs"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/timeline"
	"github.com/dylan-gluck/spcstr/tui/watch"
)

// The commands below are the dashboard's only I/O. Each reads what it is
// asked for and returns a message; Update never touches the disk.

func listingCmd(l state.Layout) tea.Cmd {
	return func() tea.Msg {
		list, err := store.ListSessions(l)
		return listingMsg{list: list, err: err, missing: !l.Exists()}
	}
}

// sessionsCmd reads the session states the store asks for.
func sessionsCmd(l state.Layout, r store.SessionsRead) tea.Cmd {
	return func() tea.Msg { return sessionsMsg{store.ReadSessions(l, r)} }
}

func registryCmd(path string, alive func(int) bool) tea.Cmd {
	return func() tea.Msg {
		reg := registry.Load(path)
		return registryMsg{reg: reg, alive: aliveMap(reg, alive)}
	}
}

func aliveCmd(reg registry.File, alive func(int) bool) tea.Cmd {
	return func() tea.Msg { return aliveMsg{alive: aliveMap(reg, alive)} }
}

func aliveMap(reg registry.File, alive func(int) bool) map[int]bool {
	m := make(map[int]bool, len(reg.Sessions))
	for _, e := range reg.Sessions {
		if e.PPID > 0 {
			if _, ok := m[e.PPID]; !ok {
				m[e.PPID] = alive(e.PPID)
			}
		}
	}
	return m
}

func tailStartCmd(l state.Layout) tea.Cmd {
	return func() tea.Msg { return tailMsg{store.ReadTailStart(l)} }
}

func tailCmd(r store.TailRead) tea.Cmd {
	return func() tea.Msg { return tailMsg{store.ReadTail(r)} }
}

func customCmd(l state.Layout, id string) tea.Cmd {
	return func() tea.Msg { return customMsg{id: id, evs: store.ReadCustom(l, id)} }
}

func historyCmd(l state.Layout, id string) tea.Cmd {
	return func() tea.Msg { return historyMsg{store.ReadHistory(l, id)} }
}

// focusCmd brings session id's terminal pane to the front (the terminal
// its state.json recorded at its start).
func focusCmd(ctx context.Context, l state.Layout, id string) tea.Cmd {
	return func() tea.Msg {
		s, err := l.Load(id)
		if err != nil {
			return focusDoneMsg{err: fmt.Errorf("cannot read the session's state: %w", err)}
		}
		did, err := focus.Focus(ctx, s.Terminal, focus.Options{})
		return focusDoneMsg{did: did, err: err}
	}
}

// notifyCmd delivers a notice, unless the session's pane is the one in
// front (its terminal says so).
func notifyCmd(ctx context.Context, l state.Layout, n notify.Notice, m notify.Method, inTmux bool) tea.Cmd {
	return func() tea.Msg {
		if s, err := l.Load(n.ID); err == nil && focus.Active(ctx, s.Terminal, focus.Options{}) {
			return nil
		}
		if m.Kind == "command" {
			if err := notify.Run(ctx, m, n.Title, n.Body); err != nil {
				return notifyErrMsg{err}
			}
			return nil
		}
		return notifyRawMsg{notify.Sequence(m.Kind, n.Title, n.Body, inTmux)}
	}
}

// timelineMaxEvents bounds the events read for each lane of the timeline.
const timelineMaxEvents = 20000

// timelineCmd reads the timeline's lanes: each session's events since the
// window's earliest start, its title and its agents.
func timelineCmd(l state.Layout, ids, titles []string, since time.Time) tea.Cmd {
	return func() tea.Msg {
		lanes := make([]timeline.Lane, 0, len(ids))
		for i, id := range ids {
			ln := timeline.Lane{ID: id, Title: titles[i], Events: store.Since(l.LogsDir(), id, since, timelineMaxEvents)}
			if s, err := l.Load(id); err == nil {
				for _, a := range s.AgentsHistory {
					b := timeline.Bar{Start: a.StartedAt, Label: text.Sanitize(a.Name), Background: a.Background}
					if a.CompletedAt != nil {
						b.End = *a.CompletedAt
					}
					ln.Agents = append(ln.Agents, b)
				}
			}
			lanes = append(lanes, ln)
		}
		return timelineMsg{lanes, since}
	}
}

// entryCmd finds the log entry ev was read from.
func entryCmd(l state.Layout, ev store.Event) tea.Cmd {
	return func() tea.Msg {
		find := func() ([]byte, bool) { return store.FindEntry(l.LogsDir(), ev) }
		if ev.Event == "Custom" { // from the session's observability log
			find = func() ([]byte, bool) { return store.FindCustom(l, ev) }
		}
		raw, ok := find()
		msg := entryMsg{ev: ev, raw: raw, ok: ok}
		if ok && ev.Event != "Custom" && ev.Event != "Decision" {
			if a, found := store.FindAnswer(l.LogsDir(), raw); found {
				msg.answer = &a
			}
		}
		return msg
	}
}

func reqCmd(ctx context.Context, load reqs.Loader, req reqs.Request) tea.Cmd {
	return func() tea.Msg { return reqMsg{id: req.SessionID, view: load(ctx, req)} }
}

func feedbackCmd(ctx context.Context, load loop.Loader, req loop.Request) tea.Cmd {
	return func() tea.Msg { return feedbackMsg{id: req.SessionID, view: load(ctx, req)} }
}

// strategiesCmd reads .spcstr/config.yaml for the header's strategies, the
// price table and the dashboard's own section (dashboard.bell).
func strategiesCmd(l state.Layout) tea.Cmd {
	return func() tea.Msg {
		cfg, err := config.Load(l.ConfigPath())
		msg := strategiesMsg{active: strategy.Active(cfg), dryRun: cfg.DryRun, err: err}
		for i := range msg.active {
			msg.active[i].Name = text.Sanitize(msg.active[i].Name)
		}
		for _, p := range strategy.Validate(cfg) {
			if p.Kind != strategy.ProblemConfig {
				continue
			}
			for _, n := range p.Strategies {
				if p.FailClosed {
					msg.closing = append(msg.closing, text.Sanitize(n))
				} else {
					msg.off = append(msg.off, text.Sanitize(n))
				}
			}
		}
		var perr error
		msg.prices, perr = pricing.Load(cfg)
		dash, derr := dashboardSettings(cfg, os.Getenv)
		msg.bell = dash.Bell != nil && *dash.Bell
		msg.notify = dash.Notify != nil && *dash.Notify
		msg.method, msg.methodErr = notify.Choose(dash.NotifyVia, dash.NotifyCommand, os.Getenv)
		msg.inTmux = os.Getenv("TMUX") != ""
		switch dash.NotifyAfter {
		case "":
		case "0", "off":
			msg.longTurn = -1
		default:
			d, perr := time.ParseDuration(dash.NotifyAfter)
			if perr != nil || d <= 0 {
				derr = cmp.Or(derr, fmt.Errorf("dashboard.notify_after %q: want a duration such as 2m, or off", dash.NotifyAfter))
			} else {
				msg.longTurn = d
			}
		}
		msg.err = cmp.Or(msg.err, perr, derr)
		return msg
	}
}

func watchStartCmd(opt watch.Options) tea.Cmd {
	return func() tea.Msg {
		w, err := watch.Start(opt)
		return watchStartedMsg{w: w, err: err}
	}
}

func waitChangeCmd(ctx context.Context, w *watch.Watcher) tea.Cmd {
	return func() tea.Msg {
		c, ok := w.Next(ctx)
		if !ok {
			return watchEndedMsg{}
		}
		return changeMsg{c: c}
	}
}

func tickCmd(d time.Duration) tea.Cmd {
	return tea.Tick(d, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func actionCmd(ctx context.Context, act reqs.Action, req reqs.Request, name, done string) tea.Cmd {
	return func() tea.Msg {
		if err := act(ctx, req, name); err != nil {
			return actionDoneMsg{err: err}
		}
		return actionDoneMsg{text: done}
	}
}

// The requirement and loop panes' reads, and the requirement actions.

func (m *Model) reqRequest() reqs.Request {
	r := reqs.Request{Root: m.opt.Layout.Root, SessionID: m.selected}
	if s, ok := m.st.Summary(m.selected); ok {
		r.Branch = s.Branch
	}
	return r
}

func (m *Model) loadReq() tea.Cmd {
	return reqCmd(m.ctx, m.opt.Requirements, m.reqRequest())
}

func (m *Model) loadFeedback() tea.Cmd {
	return feedbackCmd(m.ctx, m.opt.Feedback, loop.Request{Root: m.opt.Layout.Root, SessionID: m.selected})
}

func (m *Model) runAction(a reqs.ActionMsg) tea.Cmd {
	var act reqs.Action
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
		m.flash("satisfy and clear are " + reqs.ComingSoon)
		return nil
	}
	if a.Name == "" {
		m.flash("no requirement selected")
		return nil
	}
	return actionCmd(m.ctx, act, m.reqRequest(), a.Name, done)
}

// RequirementsDir is the folder holding requirement state for the project
// at root: <git common dir>/requirements, or .spcstr/requirements outside
// git (docs/layout.md).
func RequirementsDir(root string) string {
	return requirements.Locate(root).Dir
}

// dashboardSection is the dashboard: section of a config file.
type dashboardSection struct {
	Bell          *bool    `yaml:"bell"`
	Notify        *bool    `yaml:"notify"`
	NotifyVia     string   `yaml:"notify_via"`
	NotifyCommand []string `yaml:"notify_command"`
	// NotifyAfter is how long a turn must run for its end to be notified
	// ("2m" by default; "0" or "off": never).
	NotifyAfter string `yaml:"notify_after"`
}

// dashboardSettings merges the dashboard: sections of the project's config
// and of the user's own (config.UserPath), the user's winning. The command
// the dashboard runs (notify_command) comes from the user's config only:
// the project's file is the repository's, and the dashboard runs nothing a
// repository chose (docs/security.md; doctor warns about it).
func dashboardSettings(project *config.Config, getenv func(string) string) (dashboardSection, error) {
	var d, u dashboardSection
	err := project.Section("dashboard", &d)
	projectCommand := len(d.NotifyCommand) > 0
	d.NotifyCommand = nil
	if path := config.UserPath(getenv); path != "" {
		ucfg, uerr := config.Load(path)
		if uerr == nil {
			uerr = ucfg.Section("dashboard", &u)
		}
		err = cmp.Or(err, uerr)
	}
	if u.Bell != nil {
		d.Bell = u.Bell
	}
	if u.Notify != nil {
		d.Notify = u.Notify
	}
	d.NotifyVia = cmp.Or(u.NotifyVia, d.NotifyVia)
	d.NotifyAfter = cmp.Or(u.NotifyAfter, d.NotifyAfter)
	d.NotifyCommand = u.NotifyCommand
	if projectCommand && d.NotifyVia == "command" && len(d.NotifyCommand) == 0 {
		err = cmp.Or(err, fmt.Errorf("the project's .spcstr/config.yaml sets dashboard.notify_command, which the dashboard never runs: put your own in %s", config.UserPath(getenv)))
	}
	return d, err
}
