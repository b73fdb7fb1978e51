package strategy

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/observe"
	"github.com/dylan-gluck/spcstr/internal/satmath"
	"github.com/dylan-gluck/spcstr/state"
)

// Threshold is a token count ("150000") or a share of the context window
// ("85%").
type Threshold struct {
	Tokens  int64
	Percent float64
}

// UnmarshalYAML accepts an integer or "N%". Its errors point at the value
// in config.yaml.
func (t *Threshold) UnmarshalYAML(n ast.Node) error {
	if err := t.parse(n); err != nil {
		return config.NodeError(n, err)
	}
	return nil
}

func (t *Threshold) parse(n ast.Node) error {
	var v any
	if err := yaml.NodeToValue(n, &v); err != nil {
		return fmt.Errorf("want a token count or a percentage: %w", err)
	}
	s := fmt.Sprint(v)
	s = strings.TrimSpace(strings.ReplaceAll(s, "_", ""))
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f <= 0 || f > 100 {
			return fmt.Errorf("bad percentage %q: want 0 < N <= 100", s)
		}
		t.Percent = f
		return nil
	}
	k, err := strconv.ParseInt(s, 10, 64)
	if err != nil || k <= 0 {
		return fmt.Errorf("bad threshold %q: want a positive token count or N%%", s)
	}
	t.Tokens = k
	return nil
}

func (t Threshold) set() bool { return t.Tokens > 0 || t.Percent > 0 }

// of resolves the threshold against a context window.
func (t Threshold) of(window int64) int64 {
	if t.Tokens > 0 {
		return t.Tokens
	}
	return int64(t.Percent * float64(window) / 100)
}

// Token measures.
const (
	MeasureContext = "context" // tokens in the context window now (default)
	MeasureTotal   = "total"   // input + output tokens of the whole session
)

type tokenBudgetOptions struct {
	Common `yaml:",inline"`
	// Measure is "context" or "total". Unset, it is "total" when every
	// threshold given is a token count, else "context".
	Measure   string    `yaml:"measure"`
	Warn      Threshold `yaml:"warn_threshold"`
	Critical  Threshold `yaml:"critical_threshold"`
	Emergency Threshold `yaml:"emergency_threshold"`
	// DenyAgentsAbove denies Agent/Task calls once the context is over it
	// (the feedback loop's compaction gate). Off when unset.
	DenyAgentsAbove Threshold `yaml:"deny_agents_above"`
	// DenyAgentsRequires limits the denial to when one of these files
	// (globs relative to the project root) is an orchestration manifest
	// with a current_phase, e.g. .claude/.output/*/MANIFEST.yaml: ad-hoc
	// agent work, and a manifest without a current phase, are not affected.
	DenyAgentsRequires []string `yaml:"deny_agents_requires"`
}

type tokenBudget struct{ o tokenBudgetOptions }

func buildTokenBudget(n ast.Node, _ *config.Config) (Strategy, Common, error) {
	var o tokenBudgetOptions
	if err := decodeStrict(n, &o); err != nil {
		return nil, o.Common, err
	}
	if o.Measure == "" && absolute(o.Warn, o.Critical, o.Emergency) {
		// Token counts without a measure mean what they meant in the
		// design: input + output tokens of the session.
		o.Measure = MeasureTotal
	}
	switch o.Measure {
	case "", MeasureContext:
		o.Measure = MeasureContext
		def(&o.Warn, Threshold{Percent: 75})
		def(&o.Critical, Threshold{Percent: 80})
		def(&o.Emergency, Threshold{Percent: 85})
	case MeasureTotal:
		def(&o.Warn, Threshold{Tokens: 100_000})
		def(&o.Critical, Threshold{Tokens: 150_000})
		def(&o.Emergency, Threshold{Tokens: 180_000})
		for _, t := range []Threshold{o.Warn, o.Critical, o.Emergency} {
			if t.Percent > 0 {
				return nil, o.Common, at(n, "measure", fmt.Errorf("measure total takes token counts, not percentages"))
			}
		}
	default:
		return nil, o.Common, at(n, "measure", fmt.Errorf("measure %q: want context or total", o.Measure))
	}
	return &tokenBudget{o: o}, o.Common, nil
}

// absolute reports whether some thresholds are set and all of those are
// token counts.
func absolute(ts ...Threshold) bool {
	set := false
	for _, t := range ts {
		if t.Percent > 0 {
			return false
		}
		set = set || t.Tokens > 0
	}
	return set
}

func def(t *Threshold, d Threshold) {
	if !t.set() {
		*t = d
	}
}

func (s *tokenBudget) Hooks() []Hook {
	h := []Hook{{Event: hookio.PostToolUse, Tool: "*"}, {Event: hookio.UserPromptSubmit}}
	if s.o.DenyAgentsAbove.set() {
		h = append(h, Hook{Event: hookio.PreToolUse, Tool: "Agent", Blocks: true},
			Hook{Event: hookio.PreToolUse, Tool: "Task", Blocks: true})
	}
	return h
}

// Levels, lowest first.
var tokenLevels = []string{"warn", "critical", "emergency"}

func (s *tokenBudget) value(t state.Tokens) int64 {
	if s.o.Measure == MeasureTotal {
		return satmath.Add(t.Input, t.Output) // a wrapped sum would pass the gate
	}
	return t.ContextUsed
}

func (s *tokenBudget) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	t := in.Session.Tokens
	window := t.ContextWindow
	used := s.value(t)
	if in.Event.AgentID != "" || used <= 0 {
		return nil, nil // a subagent's tool call, or no transcript yet
	}
	if in.Name == hookio.PreToolUse {
		return s.gateSpawn(in, t)
	}
	thresholds := []Threshold{s.o.Warn, s.o.Critical, s.o.Emergency}
	level := -1
	for i, th := range thresholds {
		if used >= th.of(window) {
			level = i
		}
	}
	if level < 0 {
		return nil, nil
	}
	// Once per level per compaction cycle; crossing a higher level also
	// retires the lower ones.
	key := func(i int) string { return fmt.Sprintf("token-budget:%s:c%d", tokenLevels[i], in.Session.Compactions) }
	if in.Session.Notes[key(level)] {
		return nil, nil
	}
	for i := 0; i <= level; i++ {
		in.Session.Note(key(i))
	}
	emit(in, NameTokenBudget, observe.ThresholdCrossed, map[string]any{"level": tokenLevels[level], "measure": s.o.Measure,
		"used": used, "threshold": thresholds[level].of(window), "context_window": window, "percent": math.Round(t.ContextPercent()*10) / 10})
	amount := s.describe(t)
	v := gate.Verdict{}
	switch level {
	case 2:
		v.Context = fmt.Sprintf("EMERGENCY: token budget nearly spent (%s). Checkpoint immediately: commit your work and update the progress notes before anything else.", amount)
		v.SystemMessage = "spcstr token-budget: EMERGENCY, " + amount + ". Consider /compact now."
	case 1:
		v.Context = fmt.Sprintf("CRITICAL: %s. Checkpoint soon (commit, update progress notes), and compact before spawning more agents.", amount)
		v.SystemMessage = "spcstr token-budget: critical, " + amount + "."
	default:
		v.Context = fmt.Sprintf("Notice: %s. Consider checkpointing.", amount)
	}
	return []gate.Verdict{v}, nil
}

func (s *tokenBudget) describe(t state.Tokens) string {
	if s.o.Measure == MeasureTotal {
		return fmt.Sprintf("%s tokens used this session", thousands(satmath.Add(t.Input, t.Output)))
	}
	return fmt.Sprintf("context at %.0f%% (%s of %s tokens)", t.ContextPercent(), thousands(t.ContextUsed), thousands(t.ContextWindow))
}

// gateSpawn denies an Agent/Task call when the context is over the limit
// (and an orchestration marker exists, when one is required).
func (s *tokenBudget) gateSpawn(in *gate.Input, t state.Tokens) ([]gate.Verdict, error) {
	if !s.o.DenyAgentsAbove.set() || !hookio.IsSubagentTool(in.Event.ToolName) {
		return nil, nil
	}
	limit := s.o.DenyAgentsAbove.of(t.ContextWindow)
	if t.ContextUsed < limit {
		return nil, nil
	}
	if len(s.o.DenyAgentsRequires) > 0 && !orchestrationActive(in.Layout.Root, s.o.DenyAgentsRequires) {
		return nil, nil
	}
	pct := t.ContextPercent()
	return []gate.Verdict{{
		Decision: gate.Deny,
		Reason:   fmt.Sprintf("context-over-limit:%.0f%%", pct),
		Message: fmt.Sprintf("COMPACTION REQUIRED: context at %.0f%% (%s of %s tokens), over the limit of %s for spawning agents. Ask the user to run /compact, then spawn the agent again.",
			pct, thousands(t.ContextUsed), thousands(t.ContextWindow), thousands(limit)),
		SystemMessage: fmt.Sprintf("spcstr token-budget: agent spawn denied, context at %.0f%%. Run /compact to continue.", pct),
	}}, nil
}

// thousands formats n with thousands separators.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
