package strategy

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/pricing"
)

// What cost-budget does past a cap (on_cap).
const (
	CapDenyAgents = "deny-agents" // deny Agent/Task spawns (default)
	CapBlockStop  = "block-stop"  // block Stop
)

// CostLiftNote is the session note that lifts cost-budget's cap for the
// session (`spcstr cost lift` writes it).
const CostLiftNote = "cost-budget:lifted"

type costBudgetOptions struct {
	Common `yaml:",inline"`
	// Session and day thresholds in US dollars (0: unset). The session's
	// figure is Claude Code's own once it wrote one, else spcstr's
	// estimate (a lower bound with unpriced models); the day's adds up
	// the project's sessions active today (local time).
	SessionWarn float64 `yaml:"session_warn"`
	SessionCap  float64 `yaml:"session_cap"`
	DayWarn     float64 `yaml:"day_warn"`
	DayCap      float64 `yaml:"day_cap"`
	// OnCap is CapDenyAgents or CapBlockStop.
	OnCap string `yaml:"on_cap"`
}

type costBudget struct {
	o      costBudgetOptions
	prices pricing.Table
}

func buildCostBudget(n ast.Node, cfg *config.Config) (Strategy, Common, error) {
	var o costBudgetOptions
	if err := decodeStrict(n, &o); err != nil {
		return nil, o.Common, err
	}
	for key, v := range map[string]float64{"session_warn": o.SessionWarn, "session_cap": o.SessionCap, "day_warn": o.DayWarn, "day_cap": o.DayCap} {
		if v < 0 {
			return nil, o.Common, at(n, key, fmt.Errorf("%s: want a positive amount in US dollars", key))
		}
	}
	if o.SessionWarn+o.SessionCap+o.DayWarn+o.DayCap == 0 {
		return nil, o.Common, fmt.Errorf("cost-budget: set at least one of session_warn, session_cap, day_warn, day_cap (US dollars)")
	}
	switch o.OnCap {
	case "":
		o.OnCap = CapDenyAgents
	case CapDenyAgents, CapBlockStop:
	default:
		return nil, o.Common, at(n, "on_cap", fmt.Errorf("on_cap %q: want %s or %s", o.OnCap, CapDenyAgents, CapBlockStop))
	}
	prices, err := pricing.Load(cfg)
	if err != nil {
		return nil, o.Common, err
	}
	return &costBudget{o: o, prices: prices}, o.Common, nil
}

func (s *costBudget) capped() bool { return s.o.SessionCap > 0 || s.o.DayCap > 0 }

func (s *costBudget) Hooks() []Hook {
	h := []Hook{{Event: hookio.PostToolUse, Tool: "*"}, {Event: hookio.UserPromptSubmit}}
	switch {
	case !s.capped():
	case s.o.OnCap == CapBlockStop:
		h = append(h, Hook{Event: hookio.Stop, Blocks: true})
	default:
		h = append(h, Hook{Event: hookio.PreToolUse, Tool: "Agent", Blocks: true},
			Hook{Event: hookio.PreToolUse, Tool: "Task", Blocks: true})
	}
	return h
}

// wantsDay reports whether this event looks at the day's total (reading
// the project's other sessions): only where it warns once per prompt or
// may block, never on every tool call.
func (s *costBudget) wantsDay(in *gate.Input) bool {
	if s.o.DayWarn == 0 && s.o.DayCap == 0 {
		return false
	}
	return in.Name != hookio.PostToolUse
}

func (s *costBudget) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	sc := s.prices.Session(in.Session)
	session := sc.USD
	day := -1.0
	if s.wantsDay(in) {
		day = s.dayUSD(in, s.prices.Summed(in.Session).USD)
	}
	switch in.Name {
	case hookio.PreToolUse, hookio.Stop:
		return s.gate(in, session, day)
	}
	if in.Event.AgentID != "" {
		return nil, nil // a subagent's tool call: the main chain is told
	}
	var msgs []string
	if s.o.SessionWarn > 0 && session >= s.o.SessionWarn && in.Session.Note("cost-budget:session-warn") {
		msgs = append(msgs, fmt.Sprintf("this session has cost %s (warning at %s)", figure(sc), pricing.Format(s.o.SessionWarn)))
	}
	if s.o.DayWarn > 0 && day >= s.o.DayWarn && in.Session.Note("cost-budget:day-warn:"+in.Now.Local().Format(time.DateOnly)) {
		msgs = append(msgs, fmt.Sprintf("today's sessions of this project have cost %s (warning at %s)", pricing.Format(day), pricing.Format(s.o.DayWarn)))
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	text := "spcstr cost-budget: " + joinAnd(msgs) + "."
	return []gate.Verdict{{Context: text + " Keep the remaining work focused.", SystemMessage: text}}, nil
}

// gate denies a spawn or blocks Stop past a cap, unless the cap is lifted
// for the session. The way out is never blocked: it is a command the user
// runs (`spcstr cost lift`), and this strategy gates no other tool.
func (s *costBudget) gate(in *gate.Input, session, day float64) ([]gate.Verdict, error) {
	if !s.capped() || in.Session.Notes[CostLiftNote] {
		return nil, nil
	}
	if in.Name == hookio.PreToolUse && !hookio.IsSubagentTool(in.Event.ToolName) {
		return nil, nil
	}
	if in.Name == hookio.Stop && in.Event.StopHookActive {
		return nil, nil // blocked once already: do not loop
	}
	var over string
	switch {
	case s.o.SessionCap > 0 && session >= s.o.SessionCap:
		over = fmt.Sprintf("this session has cost %s, over its cap of %s", pricing.Format(session), pricing.Format(s.o.SessionCap))
	case s.o.DayCap > 0 && day >= s.o.DayCap:
		over = fmt.Sprintf("today's sessions of this project have cost %s, over the day's cap of %s", pricing.Format(day), pricing.Format(s.o.DayCap))
	default:
		return nil, nil
	}
	// The way out is the user's: cost lift refuses to run inside Claude
	// Code (docs/security.md).
	lift := "`spcstr cost lift` in the project (or `spcstr cost lift --session " + in.Session.SessionID + "`)"
	yours := "run " + lift + " in your own terminal, outside Claude Code, to lift the cap for this session"
	theirs := "run " + lift + " in their own terminal to lift the cap for this session (it refuses to run from your tools)"
	v := gate.Verdict{Decision: gate.Deny, Reason: "cost-over-cap",
		Message:       "COST CAP: " + over + ". Do not spawn more agents; tell the user, who can " + theirs + ".",
		SystemMessage: "spcstr cost-budget: agent spawn denied, " + over + ". To go on, " + yours + "."}
	if in.Name == hookio.Stop {
		v = gate.Verdict{Decision: gate.Block, Reason: "cost-over-cap",
			Message:       "COST CAP: " + over + ". Summarise where the work stands for the user and stop; the user can " + theirs + ".",
			SystemMessage: "spcstr cost-budget: " + over + ". To go on, " + yours + "."}
	}
	return []gate.Verdict{v}, nil
}

// dayUSD adds up the cost of the project's sessions active today (their
// state.json written today, local time): this session's figure (self) and
// each other one's, a fork's without what it inherited (pricing.Summed). A state that cannot be read counts nothing.
func (s *costBudget) dayUSD(in *gate.Input, self float64) float64 {
	total := self
	ids, err := in.Layout.SessionIDs()
	if err != nil {
		return total
	}
	y, m, d := in.Now.Local().Date()
	for _, id := range ids {
		if id == in.Session.SessionID {
			continue
		}
		p, err := in.Layout.StatePath(id)
		if err != nil {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if fy, fm, fd := fi.ModTime().Local().Date(); fy != y || fm != m || fd != d {
			continue
		}
		other, err := in.Layout.Load(id)
		if err != nil {
			continue
		}
		total += s.prices.Summed(other).USD // a fork's inherited messages count in its parent
	}
	return total
}

// figure is a session's cost for a message, saying when it is a lower
// bound or an estimate.
func figure(sc pricing.SessionCost) string {
	switch sc.Source {
	case pricing.SourceClaudeCode:
		return sc.String() + " (Claude Code's figure)"
	case pricing.SourceClaudeCodeLive:
		return sc.String() + " (Claude Code's live figure)"
	}
	return sc.String() + " (spcstr's estimate)"
}

// joinAnd joins phrases with "; ".
func joinAnd(parts []string) string { return strings.Join(parts, "; ") }
