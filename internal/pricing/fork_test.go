package pricing_test

import (
	"math"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
)

// A fork chain (a root, its fork, a fork of that fork) whose figures are
// Claude Code's, cumulative as Claude Code counts them, adds up to the
// lineage's real spend: each fork leaves out its parent's figure at the
// fork point, subagents and compactions of the parent included, which the
// copied transcript lines alone would miss.
func TestSummedForkChain(t *testing.T) {
	prices := pricing.Default()
	cc := func(usd float64) *state.ClaudeCost {
		return &state.ClaudeCost{USD: usd, ByModel: map[string]state.ClaudeModelCost{"claude-opus-5-5": {Output: 1000, USD: usd}}}
	}
	copied := map[string]state.ModelUsage{"claude-opus-5-5": {Output: 1000}} // $0.02: the main lines only
	root := &state.Session{ClaudeCost: cc(0.10)}
	fork := &state.Session{ClaudeCost: cc(0.13), ForkedFrom: "root", Inherited: copied, InheritedCost: prices.Snapshot(root)}
	fork2 := &state.Session{ClaudeCost: cc(0.29), ForkedFrom: "fork", Inherited: copied, InheritedCost: prices.Snapshot(fork)}
	var total pricing.Total
	for _, s := range []*state.Session{root, fork, fork2} {
		total.Add(prices.Summed(s))
	}
	if math.Abs(total.USD-0.29) > 1e-9 {
		t.Errorf("the chain sums to $%.4f, the lineage spent $0.29", total.USD)
	}
	if got := prices.Session(fork2).InheritedUSD; math.Abs(got-0.13) > 1e-9 {
		t.Errorf("fork of a fork inherited $%.4f, want its parent's figure $0.13", got)
	}
	// An estimate counts only the copied lines: that is what it inherits.
	est := &state.Session{Tokens: state.Tokens{ByModel: map[string]state.ModelUsage{"claude-opus-5-5": {Output: 3000}}},
		ForkedFrom: "root", Inherited: copied, InheritedCost: cc(0.10)}
	if got := prices.Session(est).InheritedUSD; math.Abs(got-0.02) > 1e-9 {
		t.Errorf("an estimate's inherited part $%.4f, want the copied lines' $0.02", got)
	}
}
