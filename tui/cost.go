package tui

import (
	"time"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/store"
)

// costTotals is the header's money: what today's sessions (their last
// event today) and all the project's sessions cost, "today $1.20 · all
// $5.40" ("" before the prices are read or when nothing was priced). A
// "~" marks a sum with an estimate in it, a "≥" one with an unpriced
// model (docs/cost.md).
func costTotals(prices pricing.Table, sums []store.Summary, now time.Time) string {
	if prices == nil {
		return ""
	}
	y, mo, d := now.Local().Date()
	var today, all costSum
	for _, s := range sums {
		if !s.Loaded {
			continue
		}
		// A fork's copy of its parent's history counts once: in the parent.
		e := prices.Summed(&state.Session{Tokens: s.Tokens, Model: s.Model, ClaudeCost: s.ClaudeCost, Inherited: s.Inherited})
		if !e.Known() && len(e.Unpriced) == 0 {
			continue
		}
		all.add(e)
		if ly, lm, ld := s.LastAt.Local().Date(); ly == y && lm == mo && ld == d {
			today.add(e)
		}
	}
	if !all.any {
		return ""
	}
	return "today " + today.String() + " · all " + all.String()
}

// costSum adds session figures up, remembering whether any was an
// estimate or a lower bound.
type costSum struct {
	usd             float64
	any, est, lower bool
}

func (c *costSum) add(e pricing.SessionCost) {
	c.usd += e.USD
	c.any = true
	c.est = c.est || e.Source == pricing.SourceEstimate
	c.lower = c.lower || !e.Priced
}

func (c costSum) String() string {
	s := pricing.Format(c.usd)
	switch {
	case c.lower:
		return "≥" + s
	case c.est && s[0] == '$':
		return "~" + s
	}
	return s
}
