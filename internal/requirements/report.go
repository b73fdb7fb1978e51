package requirements

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dylan-gluck/spcstr/internal/registry"
)

// ConfigFileNames names the three requirements files, in cascade order.
const ConfigFileNames = "~/.claude/requirements.yaml, .claude/requirements.yaml, .claude/requirements.local.yaml"

// StatusReport is `spcstr req status --json`.
type StatusReport struct {
	Project   string `json:"project"`
	Branch    string `json:"branch"`
	Session   string `json:"session,omitempty"`
	StateFile string `json:"state_file"`
	// Files are the configuration files read, as `req list` names them.
	Files []string `json:"files"`
	// Enabled: requirements are enforced in this project (switched on,
	// and the project opted in).
	Enabled bool `json:"enabled"`
	// OptedIn: the project has its own requirements file (see OptInHint).
	OptedIn      bool     `json:"opted_in"`
	Requirements []Status `json:"requirements"`
	Warnings     []string `json:"warnings,omitempty"`
}

// Report builds the status report of session sessionID.
func (p *Project) Report(sessionID string) (*StatusReport, error) {
	st, err := p.Statuses(sessionID)
	if err != nil {
		return nil, err
	}
	if st == nil {
		st = []Status{}
	}
	files := p.Config.Files
	if files == nil {
		files = []string{}
	}
	return &StatusReport{
		Project: p.Root, Branch: p.Loc.Branch, Session: registry.ShortID(sessionID), StateFile: p.Loc.Path,
		Files: files, Enabled: p.Config.Active(), OptedIn: p.Config.OptedIn, Requirements: st, Warnings: p.Config.Warnings,
	}, nil
}

// WriteJSON writes v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func mark(s Status) string {
	switch {
	case !s.Enabled:
		return "➖"
	case s.Satisfied:
		return "✅"
	}
	return "⬜"
}

// WriteText prints the report as text: one line per requirement with
// what to run when it is not satisfied. how says how the session was
// chosen ("" when none was).
func (r *StatusReport) WriteText(w io.Writer, how string) {
	sess := "no session (session-scoped requirements show their branch-level state)"
	if r.Session != "" {
		sess = "session " + r.Session
		if how != "" {
			sess += " (" + how + ")"
		}
	}
	fmt.Fprintf(w, "Branch %s · %s\nState: %s\n", r.Branch, sess, r.StateFile)
	if len(r.Files) == 0 {
		fmt.Fprintln(w, "No requirements configuration found ("+ConfigFileNames+").")
		return
	}
	fmt.Fprintf(w, "Configuration: %s\n", strings.Join(r.Files, ", "))
	writeOff(w, r.OptedIn, r.Enabled)
	if len(r.Requirements) == 0 {
		fmt.Fprintln(w, "No requirements configured.")
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range r.Requirements {
		fmt.Fprintf(tw, "  %s %s\t%s\t%s\n", mark(s), s.Name, s.Scope, describe(s))
	}
	tw.Flush()
}

func describe(s Status) string {
	if !s.Enabled {
		return "disabled"
	}
	trig := ""
	if s.Triggered {
		trig = ", triggered"
	}
	if s.Satisfied {
		how := "satisfied"
		if s.BranchOverride {
			how += " for the whole branch"
		}
		if s.SatisfiedBy != "" {
			how += " by " + s.SatisfiedBy
		}
		if !s.SatisfiedAt.IsZero() {
			how += " at " + s.SatisfiedAt.Local().Format(time.DateTime)
		}
		return how + trig
	}
	hint := "not satisfied" + trig + " → "
	if len(s.Skills) > 0 {
		hint += "run /" + normSkill(s.Skills[0]) + " or "
	}
	return hint + "spcstr req satisfy " + s.Name
}

// ChangeReport is `spcstr req satisfy|clear --json`.
type ChangeReport struct {
	Action       string   `json:"action"` // "satisfy" or "clear"
	Session      string   `json:"session,omitempty"`
	Branch       string   `json:"branch"`
	BranchLevel  bool     `json:"branch_level"`
	Requirements []Status `json:"requirements"`
}

// WriteText prints one line per requirement changed, with the command
// that undoes a clear ("req satisfy pre_commit_review").
func (c *ChangeReport) WriteText(w io.Writer) {
	for _, s := range c.Requirements {
		where := "session " + c.Session
		if c.BranchLevel || (s.Scope != ScopeSession && s.Scope != ScopeSingleUse) {
			where = "branch " + c.Branch + " (every session)"
		}
		if c.Action == "satisfy" {
			fmt.Fprintf(w, "✅ %s satisfied for %s\n", s.Name, where)
			continue
		}
		if s.Satisfied && s.BranchOverride {
			fmt.Fprintf(w, "⚠️  %s cleared for %s, but still satisfied for the whole branch; clear that with: spcstr req clear --branch %s\n", s.Name, where, s.Name)
			continue
		}
		fix := "spcstr req satisfy " + s.Name
		if where != "session "+c.Session {
			fix += " --branch"
		}
		fmt.Fprintf(w, "⬜ %s cleared for %s; satisfy it again with: %s\n", s.Name, where, fix)
	}
}

// writeOff says why requirements are not enforced, if they are not.
func writeOff(w io.Writer, optedIn, enabled bool) {
	switch {
	case !optedIn:
		fmt.Fprintln(w, "Not enforced here: this project has not opted in ("+OptInHint+").")
	case !enabled:
		fmt.Fprintln(w, "Requirements are switched off (enabled: false).")
	}
}

// ListReport is `spcstr req list --json`.
type ListReport struct {
	// Enabled: requirements are enforced in this project (switched on,
	// and the project opted in).
	Enabled bool `json:"enabled"`
	// OptedIn: the project has its own requirements file (see OptInHint).
	OptedIn      bool       `json:"opted_in"`
	NotOptedIn   string     `json:"not_opted_in,omitempty"`
	Files        []string   `json:"files"`
	Requirements []ListItem `json:"requirements"`
	Hooks        HookReport `json:"hooks"`
	Warnings     []string   `json:"warnings,omitempty"`
}

// ListItem is one configured requirement.
type ListItem struct {
	Name      string   `json:"name"`
	Enabled   bool     `json:"enabled"`
	Scope     string   `json:"scope"`
	Triggers  []string `json:"triggers"`
	Message   string   `json:"message,omitempty"`
	Checklist []string `json:"checklist,omitempty"`
	Skills    []string `json:"skills,omitempty"`
}

// HookReport is the effective hooks section.
type HookReport struct {
	VerifyRequirements bool     `json:"verify_requirements"`
	VerifyScopes       []string `json:"verify_scopes"`
	ClearSessionState  bool     `json:"clear_session_state"`
	InjectContext      bool     `json:"inject_context"`
}

// List describes the merged configuration.
func (c *Config) List() *ListReport {
	l := &ListReport{Enabled: c.Active(), OptedIn: c.OptedIn, Files: c.Files, Requirements: []ListItem{}, Warnings: c.Warnings,
		Hooks: HookReport{c.Hooks.StopVerify, c.Hooks.VerifyScopes, c.Hooks.ClearSessionState, c.Hooks.InjectContext}}
	if l.Files == nil {
		l.Files = []string{}
	}
	if !c.OptedIn && len(c.Files) > 0 {
		l.NotOptedIn = OptInHint
	}
	for _, r := range c.Requirements {
		it := ListItem{Name: r.Name, Enabled: r.Enabled, Scope: r.Scope, Message: r.Message, Checklist: r.Checklist, Skills: r.Skills()}
		for _, t := range r.Triggers {
			it.Triggers = append(it.Triggers, t.String())
		}
		l.Requirements = append(l.Requirements, it)
	}
	return l
}

// WriteText prints the configuration as a table.
func (l *ListReport) WriteText(w io.Writer) {
	if len(l.Files) == 0 {
		fmt.Fprintln(w, "No requirements configuration found ("+ConfigFileNames+").")
		return
	}
	fmt.Fprintf(w, "Configuration: %s\n", strings.Join(l.Files, ", "))
	writeOff(w, l.OptedIn, l.Enabled)
	if len(l.Requirements) == 0 {
		fmt.Fprintln(w, "No requirements configured.")
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSCOPE\tENABLED\tTRIGGERS\tSATISFIED BY")
	for _, r := range l.Requirements {
		skills := make([]string, len(r.Skills))
		for i, s := range r.Skills {
			skills[i] = "/" + normSkill(s)
		}
		by := strings.Join(skills, ", ")
		if by == "" {
			by = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%v\t%s\t%s\n", r.Name, r.Scope, r.Enabled, strings.Join(r.Triggers, ", "), by)
	}
	tw.Flush()
	h := l.Hooks
	verify := "off"
	if h.VerifyRequirements {
		verify = strings.Join(h.VerifyScopes, ", ")
	}
	fmt.Fprintf(w, "\nStop verifies: %s · session start status: %v · clear session state at end: %v\n", verify, h.InjectContext, h.ClearSessionState)
}
