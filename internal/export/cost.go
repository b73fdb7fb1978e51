package export

import (
	"math"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
)

// usd rounds a figure to a millionth of a dollar (a short session costs
// a tenth of a cent: 1/10,000 would be 10 % off).
func usd(f float64) *float64 {
	r := math.Round(f*1e6) / 1e6
	return &r
}

// cost is the export's form of a session's cost (pricing.Table.Session).
func cost(sc pricing.SessionCost) Cost {
	c := Cost{Source: sc.Source, Estimate: sc.Source == pricing.SourceEstimate,
		Unpriced: sc.Unpriced, Models: []ModelCost{}}
	if c.Unpriced == nil {
		c.Unpriced = []string{}
	}
	if sc.Known() {
		c.USD = usd(sc.USD)
		c.LowerBound = !sc.Priced
	}
	if sc.ClaudeGuessUSD > 0 {
		c.ClaudeCodeGuessUSD = usd(sc.ClaudeGuessUSD)
	}
	for _, m := range sc.Models {
		mc := ModelCost{Model: m.Model, Input: m.Tokens.Input, Output: m.Tokens.Output,
			CacheRead: m.Tokens.CacheRead, CacheCreation: m.Tokens.CacheCreation}
		if m.Priced {
			mc.USD = usd(m.USD)
		}
		if m.InheritedUSD > 0 {
			mc.InheritedUSD = usd(m.InheritedUSD)
		}
		c.Models = append(c.Models, mc)
	}
	return c
}

// agentUsage sets each agent's usage from its transcript's (by agent id),
// priced as an estimate.
func agentUsage(agents []*Agent, t pricing.Table, s *state.Session) {
	for _, a := range agents {
		if by := s.AgentUsage(a.AgentID); by != nil {
			sc := t.Usage(by, state.Tokens{}, "")
			u := &AgentUsage{Input: sc.Tokens.Input, Output: sc.Tokens.Output, CacheRead: sc.Tokens.CacheRead, CacheCreation: sc.Tokens.CacheCreation}
			if sc.Known() {
				u.USD, u.LowerBound = usd(sc.USD), !sc.Priced
			}
			a.Usage = u
		}
		agentUsage(a.Children, t, s)
	}
}
