package tui

import (
	"time"

	"github.com/dylan-gluck/spcstr/internal/pricing"
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
	var today, all pricing.Total
	for _, s := range sums {
		if s.Loaded {
			addCost(&today, &all, summed(prices, s), s.LastAt, now)
		}
	}
	return costLabel(today, all)
}

// summed is a session's figure in a sum of sessions: a fork's copy of its
// parent's history counts once, in the parent.
func summed(prices pricing.Table, s store.Summary) pricing.SessionCost {
	return prices.Summed(s.CostState())
}

// addCost adds a session's figure to all, and to today when its last
// event was today (local time).
func addCost(today, all *pricing.Total, e pricing.SessionCost, lastAt, now time.Time) {
	all.Add(e)
	y, mo, d := now.Local().Date()
	if ly, lm, ld := lastAt.Local().Date(); ly == y && lm == mo && ld == d {
		today.Add(e)
	}
}

// costLabel is "today ~$1.20 · all ~$5.40", or "" when nothing was priced.
func costLabel(today, all pricing.Total) string {
	if !all.Any {
		return ""
	}
	return "today " + today.String() + " · all " + all.String()
}
