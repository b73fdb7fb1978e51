// Package loop is the dashboard's feedback-loop pane: for the selected
// session, each domain (backend, frontend, ...) against the three phases
// review, test planning and testing, with each phase's status, the agent
// that reported it and its issues, and the loop's iteration i/max. It owns
// the pane's view model; the loop itself comes from internal/feedback
// through Load.
package loop

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/internal/config"
	fb "github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/draw"
	"github.com/dylan-gluck/spcstr/tui/pane"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

// Phase statuses.
const (
	Pending = "pending"
	Running = "running"
	Pass    = "pass"
	Fail    = "fail"
)

// Phase is one cell of the table.
type Phase struct {
	Status string // Pending, Running, Pass, Fail
	Agent  string // agent that reported it
	Issues []string
	// Expect are the agents configured to run the phase.
	Expect []string
}

// Domain is one row: a domain and its three phases.
type Domain struct {
	Name                          string
	Review, TestPlanning, Testing Phase
	// Waits says what the domain waits for ("waits for review by
	// backend-reviewer"; feedback.Explain).
	Waits string
}

// View is everything the pane shows for one session.
type View struct {
	// Configured is false while the loop is off or not built: the pane then
	// shows Reason.
	Configured    bool
	Reason        string
	Iteration     int
	MaxIterations int
	Domains       []Domain
	// Escalated says why the loop stopped blocking ("" when it did not).
	Escalated string
	// Err is a load error (a damaged feedback-loop.json).
	Err string
	// Unrouted are code files the session changed that no rule routes.
	Unrouted []string
	// Ignored is the last result the loop did not count, and why ("":
	// none).
	Ignored string
}

// Request names what to load.
type Request struct {
	Root      string
	SessionID string
}

// Why a session has no loop.
const (
	// NotConfigured: the loop is off in .spcstr/config.yaml.
	NotConfigured = "No feedback loop: it is off (enable it with feedback.enabled in .spcstr/config.yaml)."
	// NotStarted: the loop is on, but the session has not changed code
	// it tracks (the reason goes on to say what the session changed).
	NotStarted = "No feedback loop in this session yet: the loop is on, and starts at the session's first edit of code a rule routes to a domain (by default .claude/tools/: tool; VQL, Nuclei templates, capabilities/: capability; Go, Python and other server languages: backend; TypeScript/JavaScript: frontend)."
)

// noLoop says why a session has no loop: the loop is off, the config
// does not parse, or the session has not changed tracked code (and then
// what it did change).
func noLoop(root, id string) View {
	l := state.Layout{Root: root}
	cfg, err := config.Load(l.ConfigPath())
	if err != nil {
		return View{Reason: "No feedback loop: " + text.Sanitize(err.Error())}
	}
	fc, err := fb.LoadConfig(cfg)
	switch {
	case err != nil:
		return View{Reason: "No feedback loop: " + text.Sanitize(err.Error())}
	case !fc.Enabled:
		return View{Reason: NotConfigured}
	}
	var changed []string
	if s, err := l.Load(id); err == nil {
		seen := map[string]bool{}
		for _, f := range append(append([]string{}, s.Files.New...), s.Files.Edited...) {
			if !seen[f] {
				seen[f] = true
				changed = append(changed, f)
			}
		}
	}
	var routed, other []string
	for _, f := range changed {
		if fc.Route(f) != "" {
			routed = append(routed, f)
		} else {
			other = append(other, f)
		}
	}
	switch {
	case len(routed) > 0:
		return View{Reason: NotStarted + " This session changed " + fileList(routed) +
			", which a rule routes, yet no loop started: the edits came before the loop was enabled, or from the loop's own reviewers, test leads and testers.",
			Unrouted: fc.UnroutedFiles(other)}
	case len(other) > 0:
		return View{Reason: NotStarted + " This session changed " + fileList(other) + ", which no rule routes.", Unrouted: fc.UnroutedFiles(other)}
	}
	return View{Reason: NotStarted + " This session has changed no file."}
}

// fileList names a few files: "2 files (a.js, b.yaml)".
func fileList(files []string) string {
	n := len(files)
	more := ""
	if n > 3 {
		more = fmt.Sprintf(" and %d more", n-3)
	}
	return fmt.Sprintf("%s (%s%s)", text.Plural(n, "file"), text.Sanitize(strings.Join(files[:min(n, 3)], ", ")), more)
}

// Load reads the feedback-loop state of a session
// (.spcstr/sessions/<id>/feedback-loop.json). It runs inside a tea.Cmd.
func Load(_ context.Context, req Request) View {
	if req.SessionID == "" {
		return noLoop(req.Root, req.SessionID)
	}
	st, err := fb.Load(state.Layout{Root: req.Root}, req.SessionID)
	if err != nil {
		return View{Configured: true, Err: err.Error()}
	}
	if st == nil {
		return noLoop(req.Root, req.SessionID)
	}
	v := View{Configured: true, Iteration: st.Iteration, MaxIterations: st.MaxIterations}
	if st.Escalation != nil {
		v.Escalated = st.Escalation.Message
	}
	var fc *fb.Config
	if cfg, err := config.Load(state.Layout{Root: req.Root}.ConfigPath()); err == nil {
		fc, _ = fb.LoadConfig(cfg) // nil: the roles are not named
	}
	ex := fb.Explain(st, fc)
	for i, r := range st.Table() {
		var de fb.DomainExplanation
		if i < len(ex.Domains) {
			de = ex.Domains[i]
		}
		phase := func(p fb.Phase, name string) Phase {
			c := cell(p)
			c.Expect = de.Expect[name]
			return c
		}
		v.Domains = append(v.Domains, Domain{Name: r.Name, Waits: de.Waits,
			Review: phase(r.Review, fb.PhaseReview), TestPlanning: phase(r.TestPlanning, fb.PhaseTestPlanning), Testing: phase(r.Testing, fb.PhaseTesting)})
	}
	if ig := ex.Ignored; ig.Agent != "" {
		v.Ignored = ig.Agent
		if ig.Marker != "" {
			v.Ignored += "'s " + ig.Marker
		}
		v.Ignored += ": " + ig.Why
	}
	v.Unrouted = unrouted(req.Root, req.SessionID)
	return v
}

// unrouted lists the code files the session changed that no rule routes.
func unrouted(root, id string) []string {
	l := state.Layout{Root: root}
	cfg, err := config.Load(l.ConfigPath())
	if err != nil {
		return nil
	}
	fc, err := fb.LoadConfig(cfg)
	s, err2 := l.Load(id)
	if err != nil || err2 != nil {
		return nil
	}
	return fc.UnroutedFiles(append(append([]string{}, s.Files.New...), s.Files.Edited...))
}

// cell is one phase as the pane shows it.
func cell(p fb.Phase) Phase {
	return Phase{Status: phaseStatus(p), Agent: p.Agent, Issues: p.Issues}
}

// phaseStatus maps the loop's phase status onto the pane's.
func phaseStatus(p fb.Phase) string {
	switch {
	case p.Status == fb.Pass:
		return Pass
	case p.Status == fb.Fail:
		return Fail
	case p.Running():
		return Running
	}
	return Pending
}

// Loader is Load's signature.
type Loader func(ctx context.Context, req Request) View

// Model is the feedback-loop pane.
type Model struct {
	// Keys is the pane's keys: only scrolling.
	Keys   pane.ScrollKeys
	styles *theme.Styles
	view   View
	lines  []string // the content, drawn when the view, size or styles change
	width  int
	height int
	offset int
}

var (
	_ pane.Component = (*Model)(nil)
	_ pane.Scroller  = (*Model)(nil)
)

// New returns the pane.
func New(st *theme.Styles) *Model {
	return &Model{Keys: pane.DefaultScrollKeys("top", "bottom"), styles: st, view: View{Reason: "loading…"}}
}

// ShortHelp implements help.KeyMap: none, the footer offers moving between
// sessions and panes instead (the scrolling keys are in the full help).
func (m *Model) ShortHelp() []key.Binding { return nil }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return [][]key.Binding{m.Keys.Bindings()} }

// SetStyles replaces the styles.
func (m *Model) SetStyles(st *theme.Styles) { m.styles = st; m.render() }

// SetSize sets the pane's size.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h; m.render() }

// SetView replaces what is shown. Its text (read from the session's files)
// is made safe to print here, once.
func (m *Model) SetView(v View) { m.view = v.sanitized(); m.render() }

// ScrollKeys implements pane.Scroller.
func (m *Model) ScrollKeys() pane.ScrollKeys { return m.Keys }

// Scroll implements pane.Scroller.
func (m *Model) Scroll(mv pane.Move) {
	m.offset = mv.Apply(m.offset, len(m.lines)-m.height+1, m.height)
}

// Update handles scrolling keys.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if mv, ok := m.Keys.Match(k); ok {
			m.Scroll(mv)
		}
	}
	return nil
}

func (m *Model) mark(p Phase) string {
	st := m.styles
	switch p.Status {
	case Pass:
		return st.OK.Render("✓ pass")
	case Fail:
		return st.Error.Render("✗ fail")
	case Running:
		return st.Working.Render("◐ run")
	}
	return st.Faint.Render("○ –")
}

// View draws the pane.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	return draw.Window(m.lines, m.offset, m.width, m.height)
}

func (m *Model) render() {
	st := m.styles
	w := m.width
	if w <= 0 || m.height <= 0 {
		m.lines = nil
		return
	}
	var out []string
	add := func(s string) { out = append(out, text.Fit(s, w)) }
	title := "Feedback loop"
	if m.view.Configured && m.view.MaxIterations > 0 {
		title += fmt.Sprintf(" · iteration %d/%d", m.view.Iteration, m.view.MaxIterations)
	}
	add(st.Section.Render(title))
	if m.view.Err != "" {
		for _, l := range text.Wrap(m.view.Err, w-1) {
			add(" " + st.Error.Render(l))
		}
	}
	if !m.view.Configured {
		add("")
		for _, l := range text.Wrap(m.view.Reason, w-1) {
			add(" " + st.Subtle.Render(l))
		}
	} else {
		if m.view.Escalated != "" {
			for _, l := range text.Wrap("escalated: "+m.view.Escalated, w-1) {
				add(" " + st.Warn.Render(l))
			}
		}
		nameW := 8
		for _, d := range m.view.Domains {
			nameW = max(nameW, min(text.Width(d.Name), 14))
		}
		cell := 8
		add(st.Subtle.Render(" " + text.Fit("domain", nameW) + " " + text.Fit("review", cell) + text.Fit("plan", cell) + "test"))
		for _, d := range m.view.Domains {
			add(" " + st.Bold.Render(text.Fit(d.Name, nameW)) + " " +
				text.Fit(m.mark(d.Review), cell) + text.Fit(m.mark(d.TestPlanning), cell) + m.mark(d.Testing))
			if d.Waits != "" {
				add("   " + st.Info.Render(d.Waits))
			}
			for _, ph := range []struct {
				n string
				p Phase
			}{{"review", d.Review}, {"plan", d.TestPlanning}, {"test", d.Testing}} {
				line := "   " + st.Faint.Render(ph.n+":")
				switch {
				case ph.p.Agent != "":
					line += " " + ph.p.Agent
				case len(ph.p.Expect) > 0:
					line += " " + st.Subtle.Render("expects "+strings.Join(ph.p.Expect, " or "))
				default:
					continue
				}
				add(line)
				for _, is := range ph.p.Issues {
					for _, l := range text.Wrap("- "+is, max(w-6, 8)) {
						add("     " + st.Subtle.Render(l))
					}
				}
			}
		}
		if m.view.Ignored != "" {
			for _, l := range text.Wrap("last result not counted: "+m.view.Ignored, w-1) {
				add(" " + st.Warn.Render(l))
			}
		}
	}
	if len(m.view.Unrouted) > 0 {
		for _, l := range text.Wrap("code no rule routes (not reviewed or tested): "+fileList(m.view.Unrouted), w-1) {
			add(" " + st.Warn.Render(l))
		}
	}
	m.lines = out
	m.offset = min(m.offset, max(len(out)-m.height, 0))
}

// sanitized returns v with its text made safe to print.
func (v View) sanitized() View {
	c := text.Sanitize
	v.Reason, v.Escalated, v.Err, v.Ignored = c(v.Reason), c(v.Escalated), c(v.Err), c(v.Ignored)
	ds := make([]Domain, len(v.Domains))
	for i, d := range v.Domains {
		d.Name, d.Waits = c(d.Name), c(d.Waits)
		for _, p := range []*Phase{&d.Review, &d.TestPlanning, &d.Testing} {
			p.Agent = c(p.Agent)
			ex := make([]string, len(p.Expect))
			for j, x := range p.Expect {
				ex[j] = c(x)
			}
			p.Expect = ex
			is := make([]string, len(p.Issues))
			for j, x := range p.Issues {
				is[j] = c(x)
			}
			p.Issues = is
		}
		ds[i] = d
	}
	v.Domains = ds
	un := make([]string, len(v.Unrouted))
	for i, f := range v.Unrouted {
		un[i] = c(f)
	}
	v.Unrouted = un
	return v
}
