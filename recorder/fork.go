package recorder

import (
	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
)

// inheritFork keeps, once, what a fork inherited as a figure: its
// parent's whole figure at the fork point (state.Session.InheritedCost),
// from the parent's state.json in this project, whatever that figure came
// from (the parent's main transcript, its subagents, its compactions, an
// earlier fork: Claude Code's figure of a fork counts them all). It runs
// on the hook that first finds the copied history (the transcript reader
// sets ForkedFrom), so the parent's later work is not counted. A parent
// recorded in another project leaves InheritedCost nil: sums then fall
// back on the estimate of the copied messages (docs/cost.md).
func (r *run) inheritFork(s *state.Session) {
	if s.ForkedFrom == "" || s.InheritedCost != nil || s.ForkedFrom == s.SessionID {
		return
	}
	parent, err := r.layout.Load(s.ForkedFrom)
	if err != nil {
		return
	}
	prices, err := pricing.Load(r.cfg)
	if err != nil {
		prices = pricing.Default()
	}
	s.InheritedCost = prices.Snapshot(parent)
}
