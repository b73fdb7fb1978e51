package requirements

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/registry"
)

// GateName names the requirements gate in decisions.json.
const GateName = "requirements"

// Gate enforces a project's requirements on hook events (docs/requirements.md).
type Gate struct {
	root   string
	getenv func(string) string
	active bool
	closed bool // fail_mode closed (config.yaml's requirements.fail_mode)
}

// NewGate returns the requirements gate for a project. Without
// .claude/requirements.yaml or .claude/requirements.local.yaml the gate is
// inert and the check cost two stats. Its fail_mode is `requirements:
// {fail_mode: closed}` in .spcstr/config.yaml (default open, the
// framework's design); a value that is neither counts as closed.
func NewGate(setup gate.Setup) gate.Gate {
	mode, err := gate.ReadFailMode(setup.Config, "requirements")
	return &Gate{root: setup.Layout.Root, getenv: setup.Getenv, active: Configured(setup.Layout.Root),
		closed: mode == gate.FailClosed || err != nil}
}

// Declares implements gate.Declarer: a PreToolUse some enabled requirement
// triggers on (or that cannot be told), and a verified Stop.
func (g *Gate) Declares(in *gate.Input) bool {
	if !g.active || in.Event == nil {
		return false
	}
	getenv := in.Getenv
	if getenv == nil {
		getenv = g.getenv
	}
	if getenv != nil && getenv("CLAUDE_SKIP_REQUIREMENTS") != "" {
		return false
	}
	if in.Name != hookio.PreToolUse && in.Name != hookio.Stop {
		return false
	}
	cfg, err := LoadConfig(g.root, getenv)
	if err != nil {
		return true
	}
	if !cfg.Enabled {
		return false
	}
	if in.Name == hookio.Stop {
		return cfg.Hooks.StopVerify
	}
	call := Call{Tool: in.Event.ToolName, Command: in.Event.Input().Command}
	for _, r := range cfg.EnabledReqs() {
		if ok, err := r.TriggeredErr(call); ok || err != nil {
			return true
		}
	}
	return false
}

// Name implements gate.Gate.
func (g *Gate) Name() string { return GateName }

// FailClosed implements gate.Gate: open by default (the framework's
// design), closed when config.yaml says so.
func (g *Gate) FailClosed() bool { return g.closed }

// Idle implements gate.Idler: without a requirements file the gate has
// nothing to do, and the recorder reads no state for it.
func (g *Gate) Idle() bool { return !g.active }

// Evaluate implements gate.Gate.
func (g *Gate) Evaluate(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if !g.active || in.Event == nil {
		return nil, nil
	}
	getenv := in.Getenv
	if getenv == nil {
		getenv = g.getenv
	}
	if getenv != nil && getenv("CLAUDE_SKIP_REQUIREMENTS") != "" {
		return nil, nil // the framework's escape hatch
	}
	ev := in.Event
	switch in.Name {
	case hookio.PreToolUse, hookio.Stop, hookio.SessionStart, hookio.SessionEnd:
	case hookio.UserPromptExpansion:
		if ev.CommandName == "" || (ev.ExpansionType != "" && ev.ExpansionType != "slash_command") {
			return nil, nil
		}
	case hookio.PostToolUse:
		if ev.ToolName != "Skill" && ev.ToolName != "Bash" {
			return nil, nil
		}
	default:
		return nil, nil
	}
	cfg, err := LoadConfig(g.root, getenv)
	if err != nil {
		return nil, err
	}
	e := &eval{ctx: ctx, in: in, cfg: cfg, loc: Locate(g.root), key: registry.ShortID(ev.SessionID), home: homeDir(getenv)}
	e.warnOnce()
	if !cfg.Enabled {
		return e.out, nil
	}
	switch in.Name {
	case hookio.PreToolUse:
		err = e.preToolUse()
	case hookio.PostToolUse:
		err = e.postToolUse()
	case hookio.UserPromptExpansion:
		err = e.satisfyBySkill(e.in.Event.CommandName)
	case hookio.Stop:
		err = e.stop()
	case hookio.SessionStart:
		err = e.sessionStart()
	case hookio.SessionEnd:
		err = e.sessionEnd()
	}
	return e.out, err
}

// eval is one evaluation.
type eval struct {
	ctx  context.Context
	in   *gate.Input
	cfg  *Config
	loc  Location
	key  string
	home string
	out  []gate.Verdict
}

func (e *eval) add(v gate.Verdict) {
	v.Source = GateName
	e.out = append(e.out, v)
}

// warnOnce shows configuration problems to the user once per session (as
// long as they stay the same).
func (e *eval) warnOnce() {
	if len(e.cfg.Warnings) == 0 || e.in.Session == nil {
		return
	}
	h := fnv.New64a()
	for _, w := range e.cfg.Warnings {
		h.Write([]byte(w))
		h.Write([]byte{0})
	}
	if !e.in.Session.Note(fmt.Sprintf("requirements-config-%x", h.Sum64())) {
		return
	}
	e.add(gate.Verdict{SystemMessage: "spcstr: problems in the requirements configuration (the other requirements keep working):\n- " +
		strings.Join(e.cfg.Warnings, "\n- ")})
}

func (e *eval) notice(n string) {
	if n != "" {
		e.add(gate.Verdict{SystemMessage: "spcstr: " + n})
	}
}

func (e *eval) preToolUse() error {
	ev := e.in.Event
	input := ev.Input()
	call := Call{Tool: ev.ToolName, Command: input.Command}
	var matched []*Req
	var undecided error // a command_pattern that could not be matched
	for _, r := range e.cfg.EnabledReqs() {
		ok, err := r.TriggeredErr(call)
		if err != nil {
			undecided = errors.Join(undecided, fmt.Errorf("requirement %s: %w", r.Name, err))
		}
		if ok {
			matched = append(matched, r)
		}
	}
	if planFile(input.FilePath, e.home) {
		return nil
	}
	commits, head, headOK := e.commitGuards(call)
	if len(matched) == 0 {
		if len(commits) > 0 && headOK {
			// Note where HEAD stands, so that PostToolUse can tell a
			// commit from a command that only mentions one.
			notice, err := e.loc.Update(e.ctx, e.in.Now, func(f *File) bool {
				return e.recordCommitHeads(f, commits, head)
			})
			e.notice(notice)
			if err != nil && undecided == nil {
				return gate.SideWrite(err)
			}
		}
		return undecided
	}
	var unmet []*Req
	decided := false
	notice, err := e.loc.Update(e.ctx, e.in.Now, func(f *File) bool {
		decided = true
		now := unix(e.in.Now)
		unmet = unmet[:0]
		for _, r := range matched {
			if !f.IsSatisfied(r.Name, r.Scope, e.key, now) {
				unmet = append(unmet, r)
			}
		}
		if len(unmet) > 0 {
			return false // denied: nothing is triggered by a call that does not run
		}
		// This gate allows the call, so the requirements count as
		// triggered now. Another gate (feedback loop, a strategy) may
		// still deny the call; we accept marking it triggered anyway: the
		// requirement is satisfied at this moment, and "triggered" only
		// makes the Stop check look at it.
		changed := false
		for _, r := range matched {
			if f.MarkTriggered(r.Name, r.Scope, e.key, now) {
				changed = true
			}
		}
		if headOK && e.recordCommitHeads(f, commits, head) {
			changed = true
		}
		return changed
	})
	if err != nil && !decided {
		return err // the state could not be read: no decision
	}
	// Decided from what was read; a failed write of the triggered marks
	// or of the metrics is reported, never a verdict (gate.SideWrite).
	side := err
	e.notice(notice)
	if len(unmet) > 0 {
		side = errors.Join(side, e.loc.UpdateMetrics(e.ctx, e.key, e.in.Now, func(m Metrics) bool {
			for _, r := range unmet {
				m.RecordBlocked(r.Name, e.in.Now.Unix())
			}
			return true
		}))
		e.add(gate.Verdict{
			Decision: gate.Deny,
			Reason:   "unsatisfied:" + joinNames(unmet, ","),
			Message:  DenyMessage(unmet, ev.ToolName, e.key, e.loc.Branch),
		})
		return gate.SideWrite(side)
	}
	if undecided != nil {
		return undecided // another requirement might have denied
	}
	e.add(gate.Verdict{Decision: gate.Allow, Reason: "satisfied:" + joinNames(matched, ",")})
	return gate.SideWrite(side)
}

func (e *eval) postToolUse() error {
	ev := e.in.Event
	input := ev.Input()
	switch ev.ToolName {
	case "Skill":
		if ok := ev.Response().Success; ok != nil && !*ok {
			return nil // the skill did not load
		}
		return e.satisfyBySkill(input.Skill)
	case "Bash":
		call := Call{Tool: "Bash", Command: input.Command}
		var guarded []*Req
		for _, r := range e.cfg.EnabledReqs() {
			if r.Scope == ScopeSingleUse && r.UsedUpBy(call) {
				guarded = append(guarded, r)
			}
		}
		if len(guarded) == 0 {
			return nil
		}
		// A commit command spends a requirement only if HEAD moved
		// (commit.go); any other guarded command, once it completed.
		commit := isGitCommit(input.Command)
		head, headOK := "", false
		if commit {
			head, headOK = headCommit(e.loc.Root)
		}
		var cleared, still []*Req
		notice, err := e.loc.Update(e.ctx, e.in.Now, func(f *File) bool {
			cleared, still = cleared[:0], still[:0]
			kept := false
			for _, r := range guarded {
				if commit {
					if before, ok := f.takeCommitHead(r.Name, e.key, ev.ToolUseID); ok {
						kept = true // the record is gone either way: write
						if headOK && before == head {
							continue // HEAD did not move: no commit happened
						}
					}
				}
				if !f.ClearSingleUse(r.Name, e.key) {
					continue
				}
				if f.IsSatisfied(r.Name, r.Scope, e.key, unix(e.in.Now)) {
					still = append(still, r) // a branch-level satisfaction remains
				} else {
					cleared = append(cleared, r)
				}
			}
			return kept || len(cleared)+len(still) > 0
		})
		if err != nil {
			return err
		}
		e.notice(notice)
		if len(cleared) > 0 {
			e.add(gate.Verdict{Context: fmt.Sprintf("spcstr: %s used up by this command; satisfy %s again before the next one.",
				describeReqs(cleared), plural(len(cleared), "it", "them"))})
		}
		if len(still) > 0 {
			e.add(gate.Verdict{Context: fmt.Sprintf("spcstr: %s stays satisfied: a branch-level satisfaction covers every session of %s (spcstr req clear --branch ends it).",
				describeReqs(still), e.loc.Branch)})
		}
	}
	return nil
}

// commitGuards returns the single_use requirements a commit command would
// spend, and where HEAD stands now (commit.go); none for other calls.
func (e *eval) commitGuards(call Call) (reqs []*Req, head string, ok bool) {
	if call.Tool != "Bash" || !isGitCommit(call.Command) {
		return nil, "", false
	}
	for _, r := range e.cfg.EnabledReqs() {
		if r.Scope == ScopeSingleUse && r.UsedUpBy(call) {
			reqs = append(reqs, r)
		}
	}
	if len(reqs) == 0 {
		return nil, "", false
	}
	head, ok = headCommit(e.loc.Root)
	return reqs, head, ok
}

// recordCommitHeads notes HEAD for this tool call in the session's entries
// of reqs; it reports whether the file changed.
func (e *eval) recordCommitHeads(f *File, reqs []*Req, head string) bool {
	changed := false
	for _, r := range reqs {
		if f.recordCommitHead(r.Name, e.key, e.in.Event.ToolUseID, head) {
			changed = true
		}
	}
	return changed
}

// satisfyBySkill satisfies the requirements mapped to a skill that
// completed (the Skill tool) or a slash command the user typed
// (UserPromptExpansion): both run the same skill.
func (e *eval) satisfyBySkill(invoked string) error {
	reqs := e.cfg.SatisfiedBy(invoked)
	if len(reqs) == 0 {
		return nil
	}
	skill := normSkill(invoked)
	notice, err := e.loc.Update(e.ctx, e.in.Now, func(f *File) bool {
		for _, r := range reqs {
			f.Satisfy(r.Name, r.Scope, e.key, false, BySkill, map[string]any{"skill": skill}, unix(e.in.Now))
		}
		return true
	})
	if err != nil {
		return err
	}
	e.notice(notice)
	e.add(gate.Verdict{Context: fmt.Sprintf("spcstr: the %s skill satisfied %s.", skill, describeReqs(reqs))})
	return gate.SideWrite(e.loc.UpdateMetrics(e.ctx, e.key, e.in.Now, func(m Metrics) bool {
		for _, r := range reqs {
			m.RecordSatisfied(r.Name, BySkill, e.in.Now.Unix())
		}
		m.RecordSkill(skill, e.in.Now.Unix())
		return true
	}))
}

func (e *eval) stop() error {
	if e.in.Event.StopHookActive || !e.cfg.Hooks.StopVerify {
		return nil
	}
	f, err := e.loc.Load()
	if err != nil {
		return err
	}
	now := unix(e.in.Now)
	var unmet, checked []*Req
	for _, r := range e.cfg.EnabledReqs() {
		if !e.cfg.Hooks.Verifies(r.Scope) || !f.IsTriggered(r.Name, r.Scope, e.key) {
			continue
		}
		checked = append(checked, r)
		if !f.IsSatisfied(r.Name, r.Scope, e.key, now) {
			unmet = append(unmet, r)
		}
	}
	switch {
	case len(unmet) > 0:
		e.add(gate.Verdict{Decision: gate.Block, Reason: "unsatisfied:" + joinNames(unmet, ","), Message: StopMessage(unmet, e.key)})
		return nil
	case len(checked) > 0:
		e.add(gate.Verdict{Decision: gate.Allow, Reason: "satisfied:" + joinNames(checked, ",")})
	}
	return nil
}

// Follow implements gate.Follower: the learning prompt, at a Stop every
// gate lets through (reflectPrompt).
func (g *Gate) Follow(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if !g.active || in.Event == nil || in.Name != hookio.Stop || in.Event.StopHookActive {
		return nil, nil
	}
	getenv := in.Getenv
	if getenv == nil {
		getenv = g.getenv
	}
	if getenv != nil && getenv("CLAUDE_SKIP_REQUIREMENTS") != "" {
		return nil, nil
	}
	cfg, err := LoadConfig(g.root, getenv)
	if err != nil || !cfg.Enabled || !cfg.Hooks.StopVerify {
		return nil, nil // Evaluate has reported a config it could not read
	}
	e := &eval{ctx: ctx, in: in, cfg: cfg, loc: Locate(g.root), key: registry.ShortID(in.Event.SessionID), home: homeDir(getenv)}
	err = e.reflectPrompt()
	return e.out, err
}

// reflectPrompt is the learning prompt: once per session, at a Stop that
// goes through (no gate blocks it: Follow) after more than ReflectMinTools
// tool calls, it suggests /session-reflect and records that (and the
// session's tool counts) in the metrics file. A Stop some gate blocks
// neither shows it nor spends its one chance.
func (e *eval) reflectPrompt() error {
	s := e.in.Session
	if s == nil || s.ToolCalls() <= ReflectMinTools || !s.Note("requirements:session-reflect") {
		return nil
	}
	e.add(gate.Verdict{SystemMessage: fmt.Sprintf("spcstr: this session made %d tool calls. Run `/session-reflect` to analyze its patterns "+
		"(session metrics: %s).", s.ToolCalls(), e.loc.MetricsPath(e.key))})
	return gate.SideWrite(e.loc.UpdateMetrics(e.ctx, e.key, e.in.Now, func(m Metrics) bool {
		m.RecordTools(s.ToolsUsed, s.Compactions)
		m.obj("learnings")["reflect_prompted_at"] = e.in.Now.Unix()
		return true
	}))
}

func (e *eval) sessionStart() error {
	// The metrics file of the session, created once: a side write.
	side := gate.SideWrite(e.loc.UpdateMetrics(e.ctx, e.key, e.in.Now, func(Metrics) bool { return false }))
	reqs := e.cfg.EnabledReqs()
	if !e.cfg.Hooks.InjectContext || len(reqs) == 0 {
		return side
	}
	f, err := e.loc.Load()
	if err != nil {
		return err
	}
	e.add(gate.Verdict{Context: StatusContext(e.cfg, f, e.key, e.loc.Branch, unix(e.in.Now))})
	return side
}

func (e *eval) sessionEnd() error {
	side := gate.SideWrite(e.loc.UpdateMetrics(e.ctx, e.key, e.in.Now, func(m Metrics) bool {
		if s := e.in.Session; s != nil {
			m.RecordTools(s.ToolsUsed, s.Compactions)
		}
		m.Finalize(e.in.Now.Unix())
		return true
	}))
	if !e.cfg.Hooks.ClearSessionState {
		return side
	}
	notice, err := e.loc.Update(e.ctx, e.in.Now, func(f *File) bool {
		changed := false
		// The framework clears every session-scoped requirement (not
		// single_use ones) whole: its clear() deletes the requirement's
		// state, other sessions' and the branch-level override included.
		for _, r := range e.cfg.Requirements {
			if r.Scope == ScopeSession && f.Remove(r.Name) {
				changed = true
			}
		}
		return changed
	})
	e.notice(notice)
	if err != nil {
		return err
	}
	return side
}

func joinNames(reqs []*Req, sep string) string {
	names := make([]string, len(reqs))
	for i, r := range reqs {
		names[i] = r.Name
	}
	return strings.Join(names, sep)
}

func describeReqs(reqs []*Req) string {
	parts := make([]string, len(reqs))
	for i, r := range reqs {
		parts[i] = fmt.Sprintf("%s (%s scope)", r.Name, r.Scope)
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
