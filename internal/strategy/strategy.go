// Package strategy owns the built-in strategies (docs/feedback-and-strategies.md):
// token-budget, clean-state, long-running, output-location, agent-first,
// quality-gate, iteration-limit, escalation-advisor, session-reminder,
// notify, precompact-context and permission-policy; their `strategies:` section of .spcstr/config.yaml
// (options, fail_mode, dry_run, hooks), the hooks each declares, and the
// gates through which the recorder runs them. Several strategies that
// block at the same hook are no conflict: internal/gate merges their
// verdicts (the strictest wins, every reason is kept). Strategies keep their per-session state in
// .spcstr/sessions/<id>/strategies.json, one namespace per strategy.
package strategy

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// Fail modes.
const (
	FailOpen   = "open"   // an error of the strategy lets the action through
	FailClosed = "closed" // an error blocks (Stop) or denies (PreToolUse)
)

// Strategy is one built-in strategy, configured.
type Strategy interface {
	// Hooks lists every hook the strategy uses, and whether it may block
	// or deny there.
	Hooks() []Hook
	// Evaluate answers one event whose hook the strategy declared. The
	// verdicts' Source is filled in by the gate.
	Evaluate(ctx context.Context, in *gate.Input) ([]gate.Verdict, error)
}

// Common are the keys every strategy accepts.
type Common struct {
	// Enabled defaults to true: listing a strategy enables it.
	Enabled *bool `yaml:"enabled"`
	// FailMode is "open" or "closed"; the default is the strategy's own.
	FailMode string `yaml:"fail_mode"`
	// DryRun logs the strategy's decisions (dry_run: true in
	// decisions.json) without enforcing them.
	DryRun bool `yaml:"dry_run"`
	// Hooks narrows the hooks the strategy uses to those listed. Each
	// must be one the strategy declares.
	Hooks []string `yaml:"hooks"`
	// StopBlockLimit overrides the global stop_block_limit for this
	// strategy (0: the global one).
	StopBlockLimit int `yaml:"stop_block_limit"`
}

// builtin describes one built-in strategy.
type builtin struct {
	name        string
	description string
	failMode    string
	// build decodes the options (strictly), checks them, and returns the
	// strategy. n is the strategy's value in config.yaml's syntax tree
	// (its positions are the file's); cfg is the whole configuration
	// (some strategies route files as the feedback loop does).
	build func(n ast.Node, cfg *config.Config) (Strategy, Common, error)
}

// builtins lists the built-in strategies by name.
func builtins() []builtin {
	return []builtin{
		{NameTokenBudget, "warns at token thresholds; optionally denies agent spawns when the context is nearly full", FailOpen, buildTokenBudget},
		{NameCostBudget, "warns at dollar thresholds of the session and the day; denies agent spawns (or blocks Stop) past a cap", FailOpen, buildCostBudget},
		{NameRateLimit, "warns, asks or denies when Claude Code's 5-hour or weekly rate-limit window passes a threshold (from spcstr statusline)", FailOpen, buildRateLimit},
		{NameCleanState, "blocks Stop while required files are missing or changes are uncommitted", FailClosed, buildCleanState},
		{NameLongRunning, "initializer/coding context, progress file and commits for long-running agents", FailOpen, buildLongRunning},
		{NameOutputLocation, "blocks agents that leave untracked Markdown outside the allowed folders", FailOpen, buildOutputLocation},
		{NameAgentFirst, "denies the main agent's edits of code that a domain's developer agent owns", FailOpen, buildAgentFirst},
		{NameQualityGate, "blocks Stop once when routed code changed and no reviewer ran", FailOpen, buildQualityGate},
		{NameIterationLimit, "keeps one agent iterating on its task, and escalates at intra_task.max_iterations", FailOpen, buildIterationLimit},
		{NameEscalationAdvisor, "asks the configured advisor commands about an escalation", FailOpen, buildEscalationAdvisor},
		{NameSessionReminder, "a short reminder with every prompt, plus the loop and requirements when relevant", FailOpen, buildSessionReminder},
		{NameNotify, "rings the bell or runs a command when the session needs input or finished", FailOpen, buildNotify},
		{NamePrecompactContext, "gives the workflow state back after a compaction", FailOpen, buildPrecompactContext},
		{NamePermissionPolicy, "allows or denies permission requests by tool, path and command (dry-run until dry_run: false)", FailOpen, buildPermissionPolicy},
	}
}

// Names of the built-in strategies.
const (
	NameTokenBudget    = "token-budget"
	NameCostBudget     = "cost-budget"
	NameRateLimit      = "rate-limit"
	NameCleanState     = "clean-state"
	NameLongRunning    = "long-running"
	NameOutputLocation = "output-location"

	NameAgentFirst        = "agent-first"
	NameQualityGate       = "quality-gate"
	NameIterationLimit    = "iteration-limit"
	NameEscalationAdvisor = "escalation-advisor"
	NameSessionReminder   = "session-reminder"
	NameNotify            = "notify"
	NamePrecompactContext = "precompact-context"
)

// BuiltinNames returns the names of the built-in strategies.
func BuiltinNames() []string {
	var out []string
	for _, b := range builtins() {
		out = append(out, b.name)
	}
	return out
}

// decodeStrict decodes a strategy's options, refusing unknown keys. A
// strategy listed without options ("quality-gate:") decodes as empty.
func decodeStrict(n ast.Node, v any) error {
	if n == nil || n.Type() == ast.NullType {
		return nil
	}
	return yaml.NodeToValue(n, v, yaml.Strict())
}

// at places err at the value of option key in a strategy's mapping n, so
// that the error names its line and column in config.yaml. Without that
// key, Load places it at the strategy's name.
func at(n ast.Node, key string, err error) error {
	if c := child(n, key); c != n {
		return config.NodeError(c, err)
	}
	return err
}

// child returns the value of key in mapping n, else n itself.
func child(n ast.Node, key string) ast.Node {
	for _, kv := range mappingValues(n) {
		if kv.Key != nil && kv.Key.String() == key {
			return kv.Value
		}
	}
	return n
}

// childKey returns the key node of key in mapping n, else n itself.
func childKey(n ast.Node, key string) ast.Node {
	for _, kv := range mappingValues(n) {
		if kv.Key != nil && kv.Key.String() == key {
			return kv.Key
		}
	}
	return n
}

// mappingValues returns the key/value pairs of a mapping node (nil for
// anything else).
func mappingValues(n ast.Node) []*ast.MappingValueNode {
	switch m := n.(type) {
	case *ast.MappingNode:
		return m.Values
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{m}
	}
	return nil
}

// Loaded is one configured strategy.
type Loaded struct {
	Name        string
	Description string
	// Hooks are the hooks it uses (after its `hooks:` narrowing).
	Hooks    []Hook
	FailMode string
	DryRun   bool
	Enabled  bool
	// StopBlockLimit is its own stop_block_limit (0: the global one).
	StopBlockLimit int
	// Version is the strategy's version: a built-in's (Version), or what
	// a command strategy's `version:` says (default FirstVersion).
	Version  string
	strategy Strategy
}

// Problem is something wrong with the strategies configuration.
type Problem struct {
	// Kind is "config" (a section that cannot be used) or "warning"
	// (ProblemWarning: the strategy runs, but most likely not as meant,
	// e.g. a matcher that selects no tool). There is no
	// conflict kind: gate.Merge merges every verdict, so two strategies
	// never switch each other off.
	Kind string
	// Strategies names the strategies involved.
	Strategies []string
	Message    string
	// FailClosed is set for a strategy left out by a config problem whose
	// section still says fail_mode: closed: Gates stands in a gate that
	// fails closed on Hooks (its hooks as far as they can be told).
	FailClosed bool
	// Kept is set when the strategy runs all the same (an unrecognised
	// fail_mode, read as closed): no stand-in gate.
	Kept    bool
	Hooks   []Hook
	matcher hookio.Matcher // a command strategy's matcher, when it compiles
}

// Kinds of Problem.
const (
	// ProblemConfig is the kind of a section that cannot be used.
	ProblemConfig = "config"
	// ProblemWarning is the kind of a usable section that most likely
	// does not do what it means (Validate only).
	ProblemWarning = "warning"
)

func (p Problem) Error() string { return p.Message }

// Load reads the `strategies:` section of cfg. It returns the strategies in
// the order the file lists them (disabled ones included, with Enabled
// false) and every problem: an unknown strategy, options that do not
// decode, a bad fail_mode or hook. A strategy with a config problem is
// left out; the others load.
func Load(cfg *config.Config) ([]*Loaded, []Problem) {
	if cfg == nil || len(cfg.Raw) == 0 {
		return nil, nil
	}
	// Walked as a syntax tree rather than decoded with cfg.Section:
	// strategies answer in the order they are listed, and every error
	// names its line and column in config.yaml.
	section, _, err := cfg.Node("strategies")
	if err != nil {
		return nil, []Problem{{Kind: ProblemConfig, Message: cfg.Where(nil, "strategies", err)}}
	}
	if section != nil && section.Type() != ast.NullType && section.Type() != ast.MappingType && section.Type() != ast.MappingValueType {
		return nil, []Problem{{Kind: ProblemConfig, Message: cfg.Where(section, "strategies", errors.New("must be a mapping of strategy names"))}}
	}
	var out []*Loaded
	var problems []Problem
	bad := func(name string, n ast.Node, err error) {
		problems = append(problems, Problem{Kind: ProblemConfig, Strategies: []string{name},
			Message: cfg.Where(n, "strategies."+name, err)})
	}
	seen := map[string]bool{}
	for _, item := range mappingValues(section) {
		name := item.Key.String()
		if seen[name] {
			bad(name, item.Key, errors.New("listed twice"))
			continue
		}
		seen[name] = true
		idx := slices.IndexFunc(builtins(), func(b builtin) bool { return b.name == name })
		var b builtin
		switch {
		case idx >= 0:
			b = builtins()[idx]
		case isCommand(item.Value):
			// A command strategy: the user's own hook script.
			b = builtin{name: name, failMode: FailOpen, build: func(n ast.Node, cfg *config.Config) (Strategy, Common, error) {
				s, c, desc, err := buildCommand(n, cfg)
				b.description = desc
				return s, c, err
			}}
		default:
			bad(name, item.Key, fmt.Errorf("unknown strategy (built-in: %s; or give it a command: to run your own)", strings.Join(BuiltinNames(), ", ")))
			continue
		}
		// The fail mode, dry_run and enabled are read from the syntax tree
		// first, so that they hold even when the rest does not decode.
		mode, modeErr := readFailMode(item.Value, b.failMode)
		st := readSwitches(item.Value)
		s, common, err := b.build(item.Value, cfg)
		var hooks []Hook
		if err == nil {
			hooks, err = narrow(s.Hooks(), common.Hooks)
			if err != nil {
				err = at(item.Value, "hooks", err)
			}
		}
		if err == nil && common.StopBlockLimit < 0 {
			err = at(item.Value, "stop_block_limit", fmt.Errorf("stop_block_limit %d: want a positive number", common.StopBlockLimit))
		}
		if err != nil {
			// Unusable: left out, but not silently. A closed one stands
			// in as a gate that could not decide on its hooks.
			bad(name, item.Key, err)
			if mode == FailClosed && st.enabled && !st.dryRun {
				p := &problems[len(problems)-1]
				p.FailClosed = true
				if s != nil {
					p.Hooks = s.Hooks()
					if c, ok := s.(*commandStrategy); ok {
						p.matcher = c.matcher
					}
				} else {
					p.Hooks, p.matcher = fallbackHooks(b, item.Value, cfg)
				}
			}
			continue
		}
		l := &Loaded{Name: name, Description: b.description, FailMode: mode, DryRun: common.DryRun,
			Enabled: common.Enabled == nil || *common.Enabled, StopBlockLimit: common.StopBlockLimit, Version: Version(name), strategy: s, Hooks: hooks}
		if c, ok := s.(*commandStrategy); ok && c.version != "" {
			l.Version = c.version
		}
		if modeErr != nil {
			// An unrecognised fail_mode counts as closed; the strategy
			// runs, and the problem is named.
			bad(name, item.Key, modeErr)
			p := &problems[len(problems)-1]
			p.FailClosed, p.Kept = true, true
		}
		out = append(out, l)
	}
	return out, problems
}

// readFailMode reads a strategy's fail_mode from its syntax tree: def when
// it is absent or null, else open or closed; any other value (`Closed`, a
// typo, a list) counts as closed, with an error naming it.
func readFailMode(n ast.Node, def string) (string, error) {
	v := child(n, "fail_mode")
	if v == n || v == nil || v.Type() == ast.NullType {
		return def, nil
	}
	var s string
	if err := yaml.NodeToValue(v, &s); err == nil && (s == FailOpen || s == FailClosed) {
		return s, nil
	}
	shown := strings.TrimSpace(v.String())
	if s != "" {
		shown = fmt.Sprintf("%q", s)
	}
	return FailClosed, config.NodeError(v, fmt.Errorf("fail_mode %s: want open or closed (read as closed until it is fixed)", shown))
}

// switches are a strategy's enabled and dry_run as far as they read.
type switches struct{ enabled, dryRun bool }

// readSwitches reads enabled and dry_run from a strategy's syntax tree, for
// a strategy whose options do not decode: a value that does not read as a
// boolean leaves it enforced (enabled, not dry-run).
func readSwitches(n ast.Node) switches {
	st := switches{enabled: true}
	var b bool
	if v := child(n, "enabled"); v != n && yaml.NodeToValue(v, &b) == nil && !b {
		st.enabled = false
	}
	b = false
	if v := child(n, "dry_run"); v != n && yaml.NodeToValue(v, &b) == nil && b {
		st.dryRun = true
	}
	return st
}

// ClosedByDefault names the built-in strategies whose fail_mode is closed
// unless they say otherwise (gate.UnusableConfig reads a config that does
// not parse with them).
func ClosedByDefault() []string {
	var out []string
	for _, b := range builtins() {
		if b.failMode == FailClosed {
			out = append(out, b.name)
		}
	}
	return out
}

// Validate reports what is wrong with the strategies configuration, for
// `spcstr doctor` (which exits non-zero when there is anything): config
// errors, each naming the strategies involved.
// The project is the folder holding the .spcstr/ of cfg.Path.
func Validate(cfg *config.Config) []Problem {
	if cfg == nil || cfg.Path == "" {
		_, problems := Load(cfg)
		return problems
	}
	return ValidateIn(cfg, filepath.Dir(filepath.Dir(cfg.Path)))
}

// ValidateIn is Validate for a config file checked against the project at
// root, wherever the file is (spcstr strategy validate --config FILE).
func ValidateIn(cfg *config.Config, root string) []Problem {
	list, problems := Load(cfg)
	// Files the strategies read only when they need them (the recorder
	// does not pay for reading them on every hook): checked here.
	for _, l := range list {
		if w, ok := l.strategy.(interface{ warnings() []string }); ok {
			for _, msg := range w.warnings() {
				problems = append(problems, Problem{Kind: ProblemWarning, Strategies: []string{l.Name},
					Message: cfg.Where(nil, "strategies."+l.Name, errors.New(msg))})
			}
		}
		if fc, ok := l.strategy.(interface{ checkFiles(root string) error }); ok {
			if err := fc.checkFiles(root); err != nil {
				problems = append(problems, Problem{Kind: ProblemConfig, Strategies: []string{l.Name},
					Message: cfg.Where(nil, "strategies."+l.Name, err)})
			}
		}
	}
	return problems
}

// Info describes an enabled strategy for the dashboard header.
type Info struct {
	Name        string
	Description string
	Hooks       []string
	FailMode    string
	DryRun      bool
}

// Active lists the enabled strategies of a project, in configuration
// order, for the dashboard's header. It ignores problems (Validate reports
// them).
func Active(cfg *config.Config) []Info {
	list, _ := Load(cfg)
	var out []Info
	for _, l := range list {
		if !l.Enabled {
			continue
		}
		info := Info{Name: l.Name, Description: l.Description, FailMode: l.FailMode, DryRun: l.DryRun}
		for _, h := range l.Hooks {
			info.Hooks = append(info.Hooks, h.String())
		}
		out = append(out, info)
	}
	return out
}

// Gates returns one gate per enabled strategy (its own name, fail_mode and
// dry_run), plus a notice gate when the configuration has problems, which
// tells the user once per session. Every enabled strategy is enforced
// beside the others, whichever hooks they share.
func Gates(setup gate.Setup) []gate.Gate {
	list, problems := Load(setup.Config)
	if len(list) == 0 && len(problems) == 0 {
		return nil
	}
	var gates []gate.Gate
	if len(problems) > 0 {
		gates = append(gates, notice{problems: problems})
	}
	for _, p := range problems {
		if p.FailClosed && !p.Kept && len(p.Strategies) == 1 {
			gates = append(gates, &brokenGate{name: p.Strategies[0], hooks: p.Hooks, matcher: p.matcher, err: errors.New(p.Message)})
		}
	}
	for _, l := range list {
		if l.Enabled {
			gates = append(gates, &strategyGate{l: l})
		}
	}
	return gates
}

// Source returns the decisions.json source of a strategy.
func Source(name string) string { return "strategy:" + name }

// strategyGate runs one strategy for the recorder.
type strategyGate struct {
	l *Loaded
}

func (g *strategyGate) Name() string { return Source(g.l.Name) }

// FailClosed is true only for an enforced strategy with fail_mode closed:
// a dry-run strategy never blocks, not even when it fails.
func (g *strategyGate) FailClosed() bool {
	return g.l.FailMode == FailClosed && !g.l.DryRun
}

// StopBlockLimit implements gate.StopLimiter.
func (g *strategyGate) StopBlockLimit() int { return g.l.StopBlockLimit }

// Declares implements gate.Declarer: the strategy uses the event's hook.
func (g *strategyGate) Declares(in *gate.Input) bool {
	tool := ""
	if isToolEvent(in.Name) && in.Event != nil {
		tool = in.Event.ToolName
	}
	for _, h := range g.l.Hooks {
		if h.Matches(in.Name, tool) {
			if m, ok := g.l.strategy.(interface{ matches(*gate.Input) bool }); ok {
				return m.matches(in)
			}
			return true
		}
	}
	return false
}

func (g *strategyGate) Evaluate(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if !g.Declares(in) {
		return nil, nil
	}
	vs, err := g.l.strategy.Evaluate(ctx, in)
	for i := range vs {
		vs[i].Source = g.Name()
		if g.l.DryRun {
			vs[i].DryRun = true
		}
	}
	return vs, err
}

// advisor is a strategy that answers escalations (escalation-advisor).
type advisor interface {
	Advise(ctx context.Context, in *gate.Input, escalated []gate.Verdict) ([]gate.Verdict, error)
}

// Advise implements gate.Advisor for the strategies that answer
// escalations; the others have nothing to say.
func (g *strategyGate) Advise(ctx context.Context, in *gate.Input, escalated []gate.Verdict) ([]gate.Verdict, error) {
	a, ok := g.l.strategy.(advisor)
	if !ok {
		return nil, nil
	}
	vs, err := a.Advise(ctx, in, escalated)
	for i := range vs {
		vs[i].Source = g.Name()
		if g.l.DryRun {
			vs[i].DryRun = true
		}
	}
	return vs, err
}

// notice tells the user, once per session, that the strategies
// configuration has problems.
type notice struct{ problems []Problem }

func (n notice) Name() string { return "strategies" }

// Declares implements gate.Declarer: the notice decides nothing.
func (n notice) Declares(*gate.Input) bool { return false }
func (n notice) FailClosed() bool          { return false }
func (n notice) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if !showsSystemMessage(in.Name) || !in.Session.Note("strategies:config-problem") {
		return nil, nil
	}
	msgs := make([]string, 0, len(n.problems))
	for _, p := range n.problems {
		msgs = append(msgs, "- "+p.Message)
	}
	return []gate.Verdict{{Source: "strategies",
		SystemMessage: "spcstr: the strategies in .spcstr/config.yaml have problems (run `spcstr doctor`):\n" + strings.Join(msgs, "\n")}}, nil
}

// showsSystemMessage reports whether Claude Code shows a systemMessage
// answered to event name (several events discard it).
func showsSystemMessage(name string) bool {
	switch name {
	case hookio.SessionStart, hookio.UserPromptSubmit, hookio.PreToolUse, hookio.PostToolUse,
		hookio.PostToolUseFailure, hookio.Stop, hookio.SubagentStop, hookio.PermissionRequest:
		return true
	}
	return false
}
