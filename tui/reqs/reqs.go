// Package reqs is the dashboard's requirements pane: each requirement of
// the selected session's branch with its scope, whether this session
// triggered it, and whether (and by what) it is satisfied, and the keys
// that satisfy or clear one. It owns the pane's view model; the
// requirements themselves (config cascade, state files, satisfy/clear) come
// from internal/requirements, through Load and DefaultActions, which write
// the same state file under the same lock as the hooks and `spcstr req`.
package reqs

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/tui/draw"
	"github.com/dylan-gluck/spcstr/tui/pane"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

// Requirement is one row of the pane.
type Requirement struct {
	Name        string
	Scope       string // session, branch, single_use, permanent
	Triggered   bool   // triggered in this session
	Satisfied   bool
	SatisfiedBy string // skill, "spcstr req", "dashboard", ...
	Message     string // what to run, shown under the selected row
}

// View is everything the pane shows for one session.
type View struct {
	// Configured is false while the project has no requirements (or the
	// feature is not built): the pane then shows Reason.
	Configured   bool
	Reason       string
	Branch       string
	Requirements []Requirement
	// Err is a load error (a damaged file), shown above the rows.
	Err string
}

// Request names what to load.
type Request struct {
	// Root is the project root (the folder holding .spcstr/).
	Root string
	// SessionID is the selected session ("" for none).
	SessionID string
	// Branch is the session's branch when known.
	Branch string
}

// NotConfigured is the reason shown when the project has no
// requirements.yaml.
const NotConfigured = "Requirements are not configured in this project (.claude/requirements.yaml)."

// Load reads the requirement status of a session from the read model the
// export shares (requirements.ReadSession: the configuration and the state
// file of the session's branch). It runs inside a tea.Cmd.
func Load(_ context.Context, req Request) View {
	sv, err := requirements.ReadSession(req.Root, req.SessionID, req.Branch)
	if err != nil {
		return View{Configured: true, Branch: req.Branch, Err: err.Error()}
	}
	v := View{Configured: len(sv.Files) > 0, Branch: sv.Branch}
	if !v.Configured {
		v.Reason = NotConfigured
		return v
	}
	if len(sv.Warnings) > 0 {
		first, _, _ := strings.Cut(sv.Warnings[0], "\n")
		v.Err = first
	}
	if sv.Err != nil {
		v.Err = sv.Err.Error()
		return v
	}
	for _, st := range sv.Statuses {
		if !st.Enabled {
			continue
		}
		r := Requirement{Name: st.Name, Scope: st.Scope, Triggered: st.Triggered, Satisfied: st.Satisfied,
			SatisfiedBy: st.SatisfiedBy, Message: st.Message}
		if st.BranchOverride {
			r.SatisfiedBy = strings.TrimSpace(r.SatisfiedBy + " (for the branch)")
		}
		v.Requirements = append(v.Requirements, r)
	}
	return v
}

// DefaultActions are the pane's write keys, backed by the requirements
// package: satisfy for this session, satisfy for the branch, and clear. Clear
// removes what makes the requirement satisfied as this session sees it: the
// session's entry, and the branch-level one for branch and permanent scope or
// a branch override.
func DefaultActions() Actions {
	return Actions{
		SatisfySession: func(ctx context.Context, req Request, name string) error {
			return requirements.Satisfy(ctx, req.Root, req.SessionID, name, false)
		},
		SatisfyBranch: func(ctx context.Context, req Request, name string) error {
			return requirements.Satisfy(ctx, req.Root, req.SessionID, name, true)
		},
		Clear: func(ctx context.Context, req Request, name string) error {
			branch := false
			if statuses, err := requirements.Statuses(req.Root, req.SessionID); err == nil {
				for _, st := range statuses {
					if st.Name == name {
						branch = st.BranchOverride || st.Scope == requirements.ScopeBranch || st.Scope == requirements.ScopePermanent
					}
				}
			}
			return requirements.Clear(ctx, req.Root, req.SessionID, name, branch)
		},
	}
}

// Loader is Load's signature, so the root model can take another.
type Loader func(ctx context.Context, req Request) View

// Action changes one requirement (satisfy for the session, satisfy for the
// branch, clear). The requirements feature provides them; nil means not
// available yet.
type Action func(ctx context.Context, req Request, name string) error

// Actions are the pane's write keys' implementations.
type Actions struct {
	SatisfySession, SatisfyBranch, Clear Action
}

// KeyMap is the pane's keys. Satisfy and Clear are reserved for the
// requirements feature: until its Actions are wired they say so.
type KeyMap struct {
	pane.ScrollKeys
	SatisfySession, SatisfyBranch, Clear key.Binding
}

// ComingSoon is the help text of the reserved keys while unwired.
const ComingSoon = "coming with requirements"

// DefaultKeyMap returns the pane's bindings; wired says whether the write
// actions exist.
func DefaultKeyMap(wired bool) KeyMap {
	suffix := " (" + ComingSoon + ")"
	if wired {
		suffix = ""
	}
	return KeyMap{
		ScrollKeys: pane.ScrollKeys{
			Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous requirement")),
			Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next requirement")),
			PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
			PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "space"), key.WithHelp("pgdn", "page down")),
			Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "first requirement")),
			Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last requirement")),
		},
		SatisfySession: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "satisfy for this session"+suffix)),
		SatisfyBranch:  key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "satisfy for the branch"+suffix)),
		Clear:          key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "clear the requirement"+suffix)),
	}
}

// ShortHelp implements help.KeyMap.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.SatisfySession, k.SatisfyBranch, k.Clear}
}

// FullHelp implements help.KeyMap.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.Bindings(), {k.SatisfySession, k.SatisfyBranch, k.Clear}}
}

// ActionMsg asks the root to run an action on the selected requirement.
type ActionMsg struct {
	Kind  string // "satisfy-session", "satisfy-branch", "clear"
	Name  string
	Scope string // the requirement's scope (session, branch, single_use, permanent)
}

// Question is the one line that asks before the action changes gate state,
// naming the requirement and the scope it applies to and ending in y/n
// ("Satisfy commit_plan for this session? y/n"); "" when nothing is
// selected.
func (a ActionMsg) Question(branch string) string {
	if a.Name == "" {
		return ""
	}
	forBranch := "for every session of the branch"
	if branch != "" {
		forBranch = "for every session of branch " + branch
	}
	switch a.Kind {
	case "satisfy-session":
		if a.Scope == requirements.ScopeBranch || a.Scope == requirements.ScopePermanent {
			return "Satisfy " + a.Name + " (" + a.Scope + " scope) " + forBranch + "? y/n"
		}
		return "Satisfy " + a.Name + " for this session? y/n"
	case "satisfy-branch":
		return "Satisfy " + a.Name + " " + forBranch + "? y/n"
	case "clear":
		if a.Scope == requirements.ScopeBranch || a.Scope == requirements.ScopePermanent {
			return "Clear " + a.Name + " " + forBranch + "? y/n"
		}
		return "Clear " + a.Name + " for this session? y/n"
	}
	return ""
}

// Branch is the branch the pane shows.
func (m *Model) Branch() string { return m.view.Branch }

// Model is the requirements pane.
type Model struct {
	Keys   KeyMap
	styles *theme.Styles
	view   View
	cursor int
	width  int
	height int
	dryRun bool
}

// SetDryRun says whether the project's gates run in dry-run (they log what
// they would decide and block nothing); the pane says so under its title.
func (m *Model) SetDryRun(dry bool) { m.dryRun = dry }

var (
	_ pane.Component = (*Model)(nil)
	_ pane.Scroller  = (*Model)(nil)
)

// New returns the pane; wired says whether the write actions exist.
func New(st *theme.Styles, wired bool) *Model {
	return &Model{Keys: DefaultKeyMap(wired), styles: st, view: View{Reason: "loading…"}}
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return m.Keys.ShortHelp() }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return m.Keys.FullHelp() }

// SetStyles replaces the styles.
func (m *Model) SetStyles(st *theme.Styles) { m.styles = st }

// SetSize sets the pane's size.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// SetView replaces what is shown, keeping the cursor on the same name. Its
// text (read from the repository's files) is made safe to print here, once.
func (m *Model) SetView(v View) {
	sel, ok := m.Selected()
	m.view = v.sanitized()
	m.cursor = 0
	if ok {
		for i, r := range v.Requirements {
			if r.Name == sel.Name {
				m.cursor = i
			}
		}
	}
}

// Selected returns the requirement under the cursor.
func (m *Model) Selected() (Requirement, bool) {
	if !m.view.Configured || m.cursor < 0 || m.cursor >= len(m.view.Requirements) {
		return Requirement{}, false
	}
	return m.view.Requirements[m.cursor], true
}

// ScrollKeys implements pane.Scroller.
func (m *Model) ScrollKeys() pane.ScrollKeys { return m.Keys.ScrollKeys }

// Scroll implements pane.Scroller: it moves the cursor.
func (m *Model) Scroll(mv pane.Move) {
	m.cursor = mv.Apply(m.cursor, len(m.view.Requirements), m.height-2)
}

// Update handles the pane's keys. The write keys return an ActionMsg.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	if mv, ok := m.Keys.Match(k); ok {
		m.Scroll(mv)
		return nil
	}
	act := func(kind string) tea.Cmd {
		sel, _ := m.Selected()
		return func() tea.Msg { return ActionMsg{Kind: kind, Name: sel.Name, Scope: sel.Scope} }
	}
	switch {
	case key.Matches(k, m.Keys.SatisfySession):
		return act("satisfy-session")
	case key.Matches(k, m.Keys.SatisfyBranch):
		return act("satisfy-branch")
	case key.Matches(k, m.Keys.Clear):
		return act("clear")
	}
	return nil
}

// View draws the pane.
func (m *Model) View() string {
	st := m.styles
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	var out []string
	add := func(s string) { out = append(out, text.Fit(s, w)) }
	title := "Requirements"
	if m.view.Branch != "" {
		title += " · " + m.view.Branch
	}
	add(st.Section.Render(title))
	if m.dryRun {
		for _, l := range text.Wrap("dry run: these requirements are checked and logged, never enforced (dry_run in .spcstr/config.yaml)", w-1) {
			add(" " + st.Warn.Render(l))
		}
	}
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
		add("")
		add(st.Faint.Render(" Reserved keys:"))
		for _, b := range []key.Binding{m.Keys.SatisfySession, m.Keys.SatisfyBranch, m.Keys.Clear} {
			for i, l := range text.Wrap(b.Help().Desc, max(w-6, 8)) {
				k := "   "
				if i == 0 {
					k = fmt.Sprintf(" %-2s", b.Help().Key)
				}
				add(st.Key.Render(k) + " " + st.Faint.Render(l))
			}
		}
	} else {
		sat := 0
		for _, r := range m.view.Requirements {
			if r.Satisfied {
				sat++
			}
		}
		add(st.Subtle.Render(fmt.Sprintf(" %d/%d satisfied", sat, len(m.view.Requirements))))
		for i, r := range m.view.Requirements {
			mark := "☐"
			if r.Satisfied {
				mark = st.OK.Render("✓")
			}
			line := " " + mark + " " + st.Bold.Render(r.Name) + " " + st.Subtle.Render(r.Scope)
			if r.Triggered {
				line += " " + st.Warn.Render("triggered")
			}
			if r.Satisfied && r.SatisfiedBy != "" {
				line += " " + st.Faint.Render("by "+r.SatisfiedBy)
			}
			line = text.Fit(line, w)
			if i == m.cursor {
				line = st.Selected.Render(line)
			}
			out = append(out, line)
			msg := r.Message // what the gate tells Claude while unsatisfied
			if r.Satisfied {
				msg = "satisfied: the gate lets the action through"
			}
			if i == m.cursor && msg != "" {
				for _, l := range text.Wrap(msg, max(w-4, 8)) {
					add("    " + st.Faint.Render(l))
				}
			}
		}
	}
	return draw.Window(out, 0, w, h)
}

// sanitized returns v with its text made safe to print.
func (v View) sanitized() View {
	c := text.Sanitize
	v.Reason, v.Branch, v.Err = c(v.Reason), c(v.Branch), c(v.Err)
	rs := make([]Requirement, len(v.Requirements))
	for i, r := range v.Requirements {
		r.Name, r.Scope, r.SatisfiedBy, r.Message = c(r.Name), c(r.Scope), c(r.SatisfiedBy), c(r.Message)
		rs[i] = r
	}
	v.Requirements = rs
	return v
}
