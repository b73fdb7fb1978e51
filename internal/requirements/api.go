package requirements

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/state"
)

// Status is one requirement as one session sees it: what `spcstr req
// status` prints and the dashboard's requirements pane shows.
type Status struct {
	Name  string `json:"name"`
	Scope string `json:"scope"`
	// Enabled is false for a configured but disabled requirement (never
	// enforced).
	Enabled bool `json:"enabled"`
	// Triggered: a guarded tool call was allowed in this session (session
	// and single_use scope) or on this branch (branch and permanent).
	Triggered bool `json:"triggered"`
	Satisfied bool `json:"satisfied"`
	// BranchOverride: a session or single_use requirement satisfied for
	// every session of the branch ("satisfy --branch").
	BranchOverride bool      `json:"branch_override,omitempty"`
	SatisfiedBy    string    `json:"satisfied_by,omitempty"`
	SatisfiedAt    time.Time `json:"satisfied_at,omitzero"`
	// Message is the configured message with placeholders filled in.
	Message string `json:"message"`
	// Triggers are the guarded tool calls ("Edit", "Bash /git\s+commit/").
	Triggers []string `json:"triggers"`
	// Skills are the skills whose completion satisfies it.
	Skills []string `json:"skills,omitempty"`
}

// Project is one project's requirements: its merged configuration and the
// state file of its current branch.
type Project struct {
	Root   string
	Config *Config
	Loc    Location
	Now    func() time.Time
	// By is the satisfied_by a hand-made Satisfy records ("" is ByCLI;
	// the dashboard's keys record ByDashboard).
	By string
}

// Open loads root's configuration ($HOME through getenv; nil means the
// process environment) and locates its state file.
func Open(root string, getenv func(string) string) (*Project, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	cfg, err := LoadConfig(root, getenv)
	if err != nil {
		return nil, err
	}
	return &Project{Root: root, Config: cfg, Loc: Locate(root), Now: time.Now}, nil
}

// ErrNoSession is returned when an operation needs a session and none was
// given.
var ErrNoSession = errors.New("no session given")

// UnknownError reports a requirement name that is not configured.
type UnknownError struct {
	Name string
	// Suggestion is the closest configured name, if any is close.
	Suggestion string
}

func (e *UnknownError) Error() string {
	msg := fmt.Sprintf("unknown requirement %q", e.Name)
	if e.Suggestion != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", e.Suggestion)
	}
	return msg + "; `spcstr req list` shows the configured ones"
}

// Statuses returns every configured requirement (enabled ones first, in
// configuration order) as session sessionID sees it. sessionID may be a
// full id or its 8-character key; with "" session-scoped requirements show
// only their branch-level state.
func (p *Project) Statuses(sessionID string) ([]Status, error) {
	f, err := p.Loc.Load()
	if err != nil {
		return nil, err
	}
	return p.statuses(f, registry.ShortID(sessionID)), nil
}

func (p *Project) statuses(f *File, key string) []Status {
	now := unix(p.Now())
	var on, off []Status
	for _, r := range p.Config.Requirements {
		s := Status{
			Name: r.Name, Scope: r.Scope, Enabled: r.Enabled && p.Config.Active(),
			Triggered: f.IsTriggered(r.Name, r.Scope, key),
			Satisfied: f.IsSatisfied(r.Name, r.Scope, key, now),
			Message:   r.ExpandMessage(key, p.Loc.Branch),
			Skills:    r.Skills(),
		}
		for _, t := range r.Triggers {
			s.Triggers = append(s.Triggers, t.String())
		}
		s.BranchOverride = f.IsOverridden(r.Name, r.Scope, now)
		if rs := f.lookup(r.Name); rs != nil && s.Satisfied {
			e := &rs.Entry
			if perSession(r.Scope) && !s.BranchOverride {
				e = rs.Sessions[key]
			}
			if e != nil {
				s.SatisfiedBy = e.SatisfiedBy
				if e.SatisfiedAt > 0 {
					s.SatisfiedAt = time.Unix(int64(e.SatisfiedAt), 0).UTC()
				}
			}
		}
		if s.Enabled {
			on = append(on, s)
		} else {
			off = append(off, s)
		}
	}
	return append(on, off...)
}

// resolve maps names to configured requirements; allowState also accepts
// names that only the state file knows (to clear leftovers).
func (p *Project) resolve(names []string, f *File, allowState bool) ([]*Req, error) {
	var out []*Req
	for _, n := range names {
		if r := p.Config.Lookup(n); r != nil {
			out = append(out, r)
			continue
		}
		if allowState {
			if rs := f.lookup(n); rs != nil {
				scope := rs.Scope
				if !ValidScope(scope) {
					scope = ScopeSession
				}
				out = append(out, &Req{Name: n, Scope: scope})
				continue
			}
		}
		known := make([]string, 0, len(p.Config.Requirements))
		for _, r := range p.Config.Requirements {
			known = append(known, r.Name)
		}
		return nil, &UnknownError{Name: n, Suggestion: Suggest(n, known)}
	}
	return out, nil
}

// Satisfy marks the named requirements satisfied by hand (satisfied_by
// "cli") for session sessionID, or for the whole branch when branchLevel is
// set (always for branch and permanent scope). It returns the new statuses
// of the named requirements and a notice when a corrupt state file was set
// aside.
func (p *Project) Satisfy(ctx context.Context, sessionID string, names []string, branchLevel bool) ([]Status, string, error) {
	return p.change(ctx, sessionID, names, branchLevel, false)
}

// Clear makes the named requirements unsatisfied for session sessionID
// (and with branchLevel also drops the branch-level override); branch and
// permanent requirements are cleared for the branch. See File.Clear.
func (p *Project) Clear(ctx context.Context, sessionID string, names []string, branchLevel bool) ([]Status, string, error) {
	return p.change(ctx, sessionID, names, branchLevel, true)
}

// ClearAll clears every requirement that is configured or has state.
func (p *Project) ClearAll(ctx context.Context, sessionID string, branchLevel bool) ([]Status, string, error) {
	f, err := p.Loc.Load()
	if err != nil && !errors.Is(err, jsonfile.ErrCorrupt) {
		return nil, "", err // a corrupt file is set aside by the update below
	}
	seen := map[string]bool{}
	var names []string
	for _, r := range p.Config.Requirements {
		seen[r.Name] = true
		names = append(names, r.Name)
	}
	var extra []string
	for n := range f.Requirements {
		if !seen[n] {
			extra = append(extra, n)
		}
	}
	sort.Strings(extra)
	return p.change(ctx, sessionID, append(names, extra...), branchLevel, true)
}

func (p *Project) change(ctx context.Context, sessionID string, names []string, branchLevel, clear bool) ([]Status, string, error) {
	key := registry.ShortID(sessionID)
	var reqs []*Req
	var resolveErr error
	now := p.Now()
	notice, err := p.Loc.Update(ctx, now, func(f *File) bool {
		reqs, resolveErr = p.resolve(names, f, clear)
		if resolveErr != nil {
			return false
		}
		for _, r := range reqs {
			if key == "" && perSession(r.Scope) && !branchLevel {
				resolveErr = fmt.Errorf("%w: %s is %s-scoped; pass --session ID (or --branch for every session)", ErrNoSession, r.Name, r.Scope)
				return false
			}
		}
		changed := false
		for _, r := range reqs {
			if clear {
				changed = f.Clear(r.Name, r.Scope, key, branchLevel) || changed
			} else {
				f.Satisfy(r.Name, r.Scope, key, branchLevel, cmp.Or(p.By, ByCLI), nil, unix(now))
				changed = true
			}
		}
		return changed
	})
	if err == nil {
		err = resolveErr
	}
	if err != nil {
		return nil, notice, err
	}
	f, err := p.Loc.Load()
	if err != nil {
		return nil, notice, err
	}
	all := p.statuses(f, key)
	var out []Status
	for _, r := range reqs {
		found := false
		for _, s := range all {
			if s.Name == r.Name {
				out = append(out, s)
				found = true
			}
		}
		if !found { // state-only leftover
			out = append(out, Status{Name: r.Name, Scope: r.Scope, Satisfied: f.IsSatisfied(r.Name, r.Scope, key, unix(now))})
		}
	}
	return out, notice, nil
}

// Statuses is the dashboard's read: every configured requirement of the
// project at root as session sessionID sees it (see Project.Statuses).
func Statuses(root, sessionID string) ([]Status, error) {
	p, err := Open(root, nil)
	if err != nil {
		return nil, err
	}
	return p.Statuses(sessionID)
}

// Satisfy is the dashboard's "satisfy" key: requirement name for session
// sessionID, or for every session of the branch when branchScope is set,
// recorded as satisfied_by "dashboard". It writes the same state file,
// under the same lock, as the hooks and `spcstr req`.
func Satisfy(ctx context.Context, root, sessionID, name string, branchScope bool) error {
	p, err := Open(root, nil)
	if err != nil {
		return err
	}
	p.By = ByDashboard
	_, _, err = p.Satisfy(ctx, sessionID, []string{name}, branchScope)
	return err
}

// Clear is the dashboard's "clear" key (see Project.Clear).
func Clear(ctx context.Context, root, sessionID, name string, branchScope bool) error {
	p, err := Open(root, nil)
	if err != nil {
		return err
	}
	_, _, err = p.Clear(ctx, sessionID, []string{name}, branchScope)
	return err
}

// ResolveSession picks the session `spcstr req` acts on: flag when given,
// else $CLAUDE_CODE_SESSION_ID, else $CLAUDE_SESSION_ID (the variable the
// framework's CLI reads), else this project's newest live session: a
// session under .spcstr/sessions that has not ended and whose Claude Code
// process is still registered and running. how says which rule chose it;
// when several sessions are live it names the others and how to pick one.
func ResolveSession(root, flag string, getenv func(string) string, alive func(pid int) bool) (id, how string, err error) {
	if flag = strings.TrimSpace(flag); flag != "" {
		return flag, "--session", nil
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, name := range []string{"CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID"} {
		if env := strings.TrimSpace(getenv(name)); env != "" {
			return env, "$" + name, nil
		}
	}
	if alive == nil {
		alive = registry.Alive
	}
	layout := state.Layout{Root: root}
	ids, err := layout.SessionIDs()
	if err != nil {
		return "", "", err
	}
	reg := registry.Load(registry.Path(getenv))
	type live struct {
		id string
		at time.Time
	}
	var all []live
	for _, sid := range ids {
		s, err := layout.Load(sid)
		if err != nil || s.Status == state.StatusEnded {
			continue
		}
		e, ok := reg.Lookup(sid)
		if !ok || !alive(e.PPID) {
			continue
		}
		all = append(all, live{sid, s.UpdatedAt})
	}
	if len(all) == 0 {
		return "", "", fmt.Errorf("%w: pass --session ID or set CLAUDE_SESSION_ID (no live session of %s was found)", ErrNoSession, root)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at.After(all[j].at) })
	if len(all) == 1 {
		return all[0].id, "the only live session", nil
	}
	others := make([]string, 0, len(all)-1)
	for _, l := range all[1:] {
		others = append(others, registry.ShortID(l.id))
	}
	return all[0].id, fmt.Sprintf("newest of %d live sessions; also live: %s; pick another with --session ID or CLAUDE_SESSION_ID",
		len(all), strings.Join(others, ", ")), nil
}
