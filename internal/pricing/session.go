package pricing

import (
	"maps"
	"slices"

	"github.com/dylan-gluck/spcstr/internal/satmath"

	"github.com/dylan-gluck/spcstr/state"
)

// Where a session's figure comes from (SessionCost.Source).
const (
	// SourceClaudeCode is Claude Code's own figure: the cost-state line it
	// writes into the main transcript (it includes compaction requests
	// and every surcharge).
	SourceClaudeCode = "claude-code"
	// SourceEstimate is spcstr's estimate from the transcripts' usage.
	SourceEstimate = "estimate"
	// SourceClaudeCodeLive is Claude Code's running figure, as its status
	// line command last received it (spcstr statusline), while the session
	// runs: newer than any cost-state line.
	SourceClaudeCodeLive = "claude-code-live"
)

// SessionCost is what a session cost and where the figure comes from.
type SessionCost struct {
	// Source is SourceClaudeCode or SourceEstimate.
	Source string
	// Estimate is the figure itself (for Claude Code's: Priced unless
	// Claude Code met a model it could not price).
	Estimate
	// Tokens is the session's token totals from the same source.
	Tokens state.ModelUsage
	// Models is the cost and tokens of each model, sorted by model id.
	Models []ModelCost
	// InheritedUSD is the part of USD a fork inherited from its parent
	// (state.Session.InheritedCost for Claude Code's figure, the estimate
	// of the copied messages for spcstr's; 0 for a session that is no
	// fork). A sum of sessions leaves it out (Summed).
	InheritedUSD float64
	// ClaudeGuessUSD is Claude Code's own total when it priced a model it
	// did not know at another model's rates (hasUnknownModelCost): its
	// guess, never the figure (0 otherwise).
	ClaudeGuessUSD float64
}

// ModelCost is one model's share of a session.
type ModelCost struct {
	Model  string
	Tokens state.ModelUsage
	// USD is the model's cost; Priced is false for a model without a
	// price (USD is then 0).
	USD    float64
	Priced bool
	// InheritedUSD is the part of USD a fork inherited (a model only its
	// parent ran has InheritedUSD == USD).
	InheritedUSD float64
}

// OnlyInherited reports whether the model ran only in the parent's part of
// a fork's figure.
func (m ModelCost) OnlyInherited() bool {
	return m.InheritedUSD > 0 && m.InheritedUSD >= m.USD-1e-9
}

// Session returns the cost of a session: Claude Code's live figure while
// the session runs and its status line records one, else Claude Code's own
// figure when its transcript has one, else the estimate from the usage
// spcstr read (main and subagent transcripts) priced by this table.
func (t Table) Session(s *state.Session) SessionCost {
	if l := s.Live; l != nil && (s.ClaudeCost == nil || l.USD > s.ClaudeCost.USD+1e-9) {
		// Claude Code's live figure, newer than its last cost-state line
		// (both are cumulative): its total and its token totals, no split
		// by model (the status line has none).
		sc := SessionCost{Source: SourceClaudeCodeLive, Estimate: Estimate{USD: l.USD, Priced: true},
			Tokens: state.ModelUsage{Input: l.Input, Output: l.Output}}
		t.inherit(&sc, s)
		return sc
	}
	if c := s.ClaudeCost; c != nil {
		sc := t.claude(c, SourceClaudeCode)
		t.inherit(&sc, s)
		return sc
	}
	sc := t.Usage(s.Tokens.ByModel, s.Tokens, s.Model)
	t.inherit(&sc, s)
	return sc
}

// claude is Claude Code's account (its cost-state line) as a figure.
// When Claude Code met a model it has no price for (hasUnknownModelCost),
// it priced that model at another model's rates: a guess. The figure is
// then the priced part only, a lower bound: each model this table does
// not know either is unpriced (USD 0, named in Unpriced, its tokens
// kept), and Claude Code's whole guess is kept apart in ClaudeGuessUSD.
func (t Table) claude(c *state.ClaudeCost, source string) SessionCost {
	sc := SessionCost{Source: source, Estimate: Estimate{USD: c.USD, Priced: !c.UnknownModel}}
	for _, m := range slices.Sorted(maps.Keys(c.ByModel)) {
		mc := c.ByModel[m]
		u := state.ModelUsage{Input: mc.Input, Output: mc.Output, CacheRead: mc.CacheRead, CacheCreation: mc.CacheCreation, WebSearches: mc.WebSearches}
		sc.Tokens.Add(u)
		one := ModelCost{Model: m, Tokens: u, USD: mc.USD, Priced: true}
		if _, known := t.Lookup(m); c.UnknownModel && !known && satmath.Sum(u.Input, u.Output, u.CacheRead, u.CacheCreation, u.WebSearches) > 0 {
			one.USD, one.Priced = 0, false
			sc.USD -= mc.USD
			sc.Unpriced = append(sc.Unpriced, m)
		}
		sc.Models = append(sc.Models, one)
	}
	if c.UnknownModel {
		sc.ClaudeGuessUSD = c.USD
		sc.USD = max(0, sc.USD)
	}
	return sc
}

// inherit sets the inherited part of a fork's figure: its parent's figure
// at the fork point (state.Session.InheritedCost) when the figure is
// Claude Code's, which counts the parent's whole cost in the fork's; the
// estimate of the copied messages when it is spcstr's, which counts only
// them. A fork recorded before InheritedCost existed has only the copied
// messages.
func (t Table) inherit(sc *SessionCost, s *state.Session) {
	by := map[string]float64{}
	switch {
	case sc.Source != SourceEstimate && s.InheritedCost != nil:
		sc.InheritedUSD = s.InheritedCost.USD
		for m, c := range s.InheritedCost.ByModel {
			by[m] += c.USD
		}
	case len(s.Inherited) > 0:
		sc.InheritedUSD = t.CostByModel(s.Inherited).USD
		for k, u := range s.Inherited {
			m, long, us := SplitVariant(k)
			if p, ok := t.Lookup(m); ok {
				by[m] += p.Message(u, long, us)
			}
		}
	default:
		return
	}
	sc.InheritedUSD = min(sc.InheritedUSD, sc.USD)
	for i := range sc.Models {
		sc.Models[i].InheritedUSD = min(by[sc.Models[i].Model], sc.Models[i].USD)
	}
}

// Snapshot is a session's figure (Session) in the form a fork keeps as
// its inheritance (state.Session.InheritedCost): the total and, by
// model, the tokens and dollars.
func (t Table) Snapshot(s *state.Session) *state.ClaudeCost {
	sc := t.Session(s)
	c := &state.ClaudeCost{USD: sc.USD, UnknownModel: len(sc.Unpriced) > 0}
	for _, m := range sc.Models {
		if c.ByModel == nil {
			c.ByModel = map[string]state.ClaudeModelCost{}
		}
		c.ByModel[m.Model] = state.ClaudeModelCost{Input: m.Tokens.Input, Output: m.Tokens.Output, CacheRead: m.Tokens.CacheRead,
			CacheCreation: m.Tokens.CacheCreation, WebSearches: m.Tokens.WebSearches, USD: m.USD}
	}
	return c
}

// Summed is what a session adds to a sum of sessions (today's total, the
// project's, cost-budget's day, reports): its figure (Session) less what
// it inherited as a fork (SessionCost.InheritedUSD), which its parent's
// figure already counts; never below zero. Claude Code counts a fork's
// inherited history in the fork's own figure, so Session leaves it there.
func (t Table) Summed(s *state.Session) SessionCost {
	sc := t.Session(s)
	sc.USD = max(0, sc.USD-sc.InheritedUSD)
	return sc
}

// Usage prices usage kept by usage key (Tokens.ByModel, a subagent's
// ByModel) as an estimate, merged by model; fallback and model price the
// totals of a state written before the split by model.
func (t Table) Usage(by map[string]state.ModelUsage, fallback state.Tokens, model string) SessionCost {
	if len(by) == 0 && fallback.Input+fallback.Output+fallback.CacheRead+fallback.CacheCreation > 0 {
		by = map[string]state.ModelUsage{model: {Input: fallback.Input, Output: fallback.Output, CacheRead: fallback.CacheRead, CacheCreation: fallback.CacheCreation}}
	}
	sc := SessionCost{Source: SourceEstimate, Estimate: t.CostByModel(by)}
	merged := map[string]*ModelCost{}
	for k, u := range by {
		m, long, us := SplitVariant(k)
		mc := merged[m]
		if mc == nil {
			mc = &ModelCost{Model: m, Priced: true}
			merged[m] = mc
		}
		mc.Tokens.Add(u)
		sc.Tokens.Add(u)
		if p, ok := t.Lookup(m); ok {
			mc.USD += p.Message(u, long, us)
		} else if u.Input+u.Output+u.CacheRead+u.CacheCreation+u.WebSearches > 0 {
			mc.Priced = false
		}
	}
	for _, m := range slices.Sorted(maps.Keys(merged)) {
		sc.Models = append(sc.Models, *merged[m])
	}
	return sc
}

// RowFigure is a session's figure as a list row shows it: "$0.42" for
// Claude Code's, "~$0.42" for an estimate, "≥$0.42" for a lower bound
// (a model without a price: never nothing, "≥$0" when nothing else was
// priced), "" when the session used no tokens.
func RowFigure(c SessionCost) string {
	switch {
	case len(c.Unpriced) > 0 && c.USD < 0.005:
		return "≥$0"
	case !c.Known():
		return ""
	case !c.Priced:
		return "≥" + Format(c.USD)
	case c.Source == SourceEstimate && c.USD >= 0.005:
		return "~" + Format(c.USD)
	}
	return Format(c.USD)
}

// Label is how a figure is shown to people: "$0.42 (Claude Code)",
// "~$0.42 (estimate)", "≥ $0.42, 1 model unpriced (estimate)", or "".
func (c SessionCost) Label() string {
	s := c.String()
	if s == "" {
		return ""
	}
	switch c.Source {
	case SourceClaudeCode:
		return s + " (Claude Code)"
	case SourceClaudeCodeLive:
		return s + " (Claude Code, live)"
	}
	if c.Priced && s[0] == '$' {
		s = "~" + s
	}
	return s + " (estimate)"
}
