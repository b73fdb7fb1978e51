// Package strategy owns the built-in strategies (docs/feedback-and-strategies.md):
// token-budget, clean-state, long-running, output-location, agent-first,
// quality-gate, iteration-limit, escalation-advisor, session-reminder,
// notify, precompact-context and permission-policy; their `strategies:` section of .spcstr/config.yaml
// (options, fail_mode, dry_run, hooks), the hooks each declares, the
// detection of two strategies that block at the same hook (a
// configuration error), and the gates through which the recorder runs
// them. Strategies keep their per-session state in
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
	// Hooks narrows the hooks the strategy uses to those listed (e.g. to
	// resolve a conflict). Each must be one the strategy declares.
	Hooks []string `yaml:"hooks"`
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
	strategy Strategy
}

// Problem is something wrong with the strategies configuration.
type Problem struct {
	// Kind is "config" (a section that cannot be used) or "conflict"
	// (two strategies block at the same hook).
	Kind string
	// Strategies names the strategies involved (two for a conflict).
	Strategies []string
	// Hook is the contested hook of a conflict.
	Hook    string
	Message string
}

// Problem kinds.
const (
	ProblemConfig   = "config"
	ProblemConflict = "conflict"
)

func (p Problem) Error() string { return p.Message }

// Load reads the `strategies:` section of cfg. It returns the strategies in
// the order the file lists them (disabled ones included, with Enabled
// false) and every problem: an unknown strategy, options that do not
// decode, a bad fail_mode or hook, and conflicts between enabled
// strategies. A strategy with a config problem is left out; the others
// load.
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
		if idx < 0 {
			bad(name, item.Key, fmt.Errorf("unknown strategy (built-in: %s)", strings.Join(BuiltinNames(), ", ")))
			continue
		}
		b := builtins()[idx]
		s, common, err := b.build(item.Value, cfg)
		if err != nil {
			bad(name, item.Key, err)
			continue
		}
		l := &Loaded{Name: name, Description: b.description, FailMode: b.failMode, DryRun: common.DryRun,
			Enabled: common.Enabled == nil || *common.Enabled, strategy: s}
		switch common.FailMode {
		case "":
		case FailOpen, FailClosed:
			l.FailMode = common.FailMode
		default:
			bad(name, child(item.Value, "fail_mode"), fmt.Errorf("fail_mode %q: want open or closed", common.FailMode))
			continue
		}
		hooks, err := narrow(s.Hooks(), common.Hooks)
		if err != nil {
			bad(name, child(item.Value, "hooks"), err)
			continue
		}
		l.Hooks = hooks
		out = append(out, l)
	}
	problems = append(problems, Conflicts(out)...)
	return out, problems
}

// Conflicts finds every pair of enabled strategies that both may block or
// deny at the same hook (a catch-all tool hook overlaps every tool of its
// event). Only blocking hooks count: non-blocking answers (context,
// warnings) merge without surprises.
func Conflicts(list []*Loaded) []Problem {
	var out []Problem
	for i, a := range list {
		if !a.Enabled {
			continue
		}
		for _, b := range list[i+1:] {
			if !b.Enabled {
				continue
			}
			for _, ha := range a.Hooks {
				if !ha.Blocks {
					continue
				}
				hit := ""
				for _, hb := range b.Hooks {
					if hb.Blocks && ha.Overlaps(hb) {
						hit = ha.String()
						if ha.Tool == "*" || ha.Tool == "" {
							hit = hb.String()
						}
						break
					}
				}
				if hit == "" {
					continue
				}
				out = append(out, Problem{Kind: ProblemConflict, Strategies: []string{a.Name, b.Name}, Hook: hit,
					Message: fmt.Sprintf("strategies %s and %s both block at %s", a.Name, b.Name, hit)})
				break
			}
		}
	}
	return out
}

// Validate reports what is wrong with the strategies configuration, for
// `spcstr doctor` (which exits non-zero when there is anything): config
// errors and conflicts, each naming the strategies involved.
func Validate(cfg *config.Config) []Problem {
	list, problems := Load(cfg)
	if cfg == nil || cfg.Path == "" {
		return problems
	}
	// Files the strategies read only when they need them (the recorder
	// does not pay for reading them on every hook): checked here.
	root := filepath.Dir(filepath.Dir(cfg.Path))
	for _, l := range list {
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
// dry_run), plus a notice gate when the configuration has problems. With
// a conflict, every strategy records its decisions without enforcing them,
// and the notice tells the user once per session.
func Gates(setup gate.Setup) []gate.Gate {
	list, problems := Load(setup.Config)
	if len(list) == 0 && len(problems) == 0 {
		return nil
	}
	conflicted := false
	for _, p := range problems {
		if p.Kind == ProblemConflict {
			conflicted = true
		}
	}
	var gates []gate.Gate
	if len(problems) > 0 {
		gates = append(gates, notice{problems: problems})
	}
	for _, l := range list {
		if l.Enabled {
			gates = append(gates, &strategyGate{l: l, unenforced: conflicted})
		}
	}
	return gates
}

// Source returns the decisions.json source of a strategy.
func Source(name string) string { return "strategy:" + name }

// strategyGate runs one strategy for the recorder.
type strategyGate struct {
	l          *Loaded
	unenforced bool // a conflict: record, don't enforce
}

func (g *strategyGate) Name() string { return Source(g.l.Name) }

// FailClosed is true only for an enforced strategy with fail_mode closed:
// a dry-run or conflicted strategy never blocks, not even when it fails.
func (g *strategyGate) FailClosed() bool {
	return g.l.FailMode == FailClosed && !g.l.DryRun && !g.unenforced
}

func (g *strategyGate) Evaluate(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	tool := ""
	if isToolEvent(in.Name) {
		tool = in.Event.ToolName
	}
	uses := false
	for _, h := range g.l.Hooks {
		if h.Matches(in.Name, tool) {
			uses = true
			break
		}
	}
	if !uses {
		return nil, nil
	}
	vs, err := g.l.strategy.Evaluate(ctx, in)
	for i := range vs {
		vs[i].Source = g.Name()
		if g.l.DryRun || g.unenforced {
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
		if g.l.DryRun || g.unenforced {
			vs[i].DryRun = true
		}
	}
	return vs, err
}

// ConflictConsequence says what a conflict does and how to resolve it; a
// report says it once, not once per conflicting pair.
const ConflictConsequence = "Until every conflict is resolved, the strategies record their decisions without enforcing them. " +
	"Resolve one by disabling a strategy (enabled: false) or narrowing its hooks (`hooks:`) so that only one blocks there."

// notice tells the user, once per session, that the strategies
// configuration has problems.
type notice struct{ problems []Problem }

func (n notice) Name() string     { return "strategies" }
func (n notice) FailClosed() bool { return false }
func (n notice) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if !showsSystemMessage(in.Name) || !in.Session.Note("strategies:config-problem") {
		return nil, nil
	}
	msgs := make([]string, 0, len(n.problems)+1)
	conflict := false
	for _, p := range n.problems {
		msgs = append(msgs, "- "+p.Message)
		conflict = conflict || p.Kind == ProblemConflict
	}
	if conflict { // said once, however many pairs conflict
		msgs = append(msgs, ConflictConsequence)
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
