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

// Claude Code's figure with a model it could not price
// (hasUnknownModelCost) is a guess for that model: the figure is the
// priced part and a lower bound, the unknown model is unpriced with its
// tokens, and Claude Code's total is kept apart as its guess. The row
// never shows nothing.
func TestClaudeUnknownModel(t *testing.T) {
	prices := pricing.Default()
	s := &state.Session{ClaudeCost: &state.ClaudeCost{USD: 0.10, UnknownModel: true, ByModel: map[string]state.ClaudeModelCost{
		"claude-opus-5-5":    {Output: 1500, USD: 0.03},
		"claude-mystery-9-9": {Input: 9000, Output: 300, USD: 0.07},
	}}}
	sc := prices.Session(s)
	if math.Abs(sc.USD-0.03) > 1e-9 || sc.Priced || len(sc.Unpriced) != 1 || sc.Unpriced[0] != "claude-mystery-9-9" {
		t.Errorf("figure $%.4f priced %v unpriced %v; want $0.03, a lower bound, [claude-mystery-9-9]", sc.USD, sc.Priced, sc.Unpriced)
	}
	if math.Abs(sc.ClaudeGuessUSD-0.10) > 1e-9 {
		t.Errorf("Claude Code's guess $%.4f, want $0.10", sc.ClaudeGuessUSD)
	}
	for _, m := range sc.Models {
		if m.Model == "claude-mystery-9-9" && (m.Priced || m.USD != 0 || m.Tokens.Input != 9000) {
			t.Errorf("unknown model's line %+v: want unpriced, with its tokens", m)
		}
	}
	if sc.Tokens.Input != 9000 || sc.Tokens.Output != 1800 {
		t.Errorf("tokens %+v: every model's, the unknown one's included", sc.Tokens)
	}
	if got := pricing.RowFigure(sc); got != "≥$0.03" {
		t.Errorf("row %q, want ≥$0.03", got)
	}
	var total pricing.Total
	total.Add(prices.Summed(s))
	if got := total.String(); got != "≥$0.03" {
		t.Errorf("header total %q, want ≥$0.03", got)
	}
	only := &state.Session{ClaudeCost: &state.ClaudeCost{USD: 0.07, UnknownModel: true, ByModel: map[string]state.ClaudeModelCost{
		"claude-mystery-9-9": {Input: 9000, Output: 300, USD: 0.07}}}}
	if got := pricing.RowFigure(prices.Session(only)); got != "≥$0" {
		t.Errorf("nothing priced: row %q, want ≥$0", got)
	}
}

// Claude Code's live figure (its status line's) is the session's figure
// while it is newer than the last cost-state line (both are cumulative);
// the cost-state line that ends the session, equal to it, takes over
// with its split by model. A fork's live figure leaves its inheritance out
// of sums too.
func TestLiveFigure(t *testing.T) {
	prices := pricing.Default()
	s := &state.Session{Live: &state.LiveCost{USD: 0.5, Input: 1000, Output: 50},
		ClaudeCost: &state.ClaudeCost{USD: 0.2, ByModel: map[string]state.ClaudeModelCost{"claude-opus-5-5": {Output: 100, USD: 0.2}}}}
	sc := prices.Session(s)
	if sc.Source != pricing.SourceClaudeCodeLive || sc.USD != 0.5 || sc.Tokens.Input != 1000 || sc.Tokens.Output != 50 {
		t.Errorf("a resumed session's live figure: %+v", sc)
	}
	s.ClaudeCost.USD = 0.5
	if sc := prices.Session(s); sc.Source != pricing.SourceClaudeCode {
		t.Errorf("the final cost-state line equal to the live figure: source %s", sc.Source)
	}
	fork := &state.Session{Live: &state.LiveCost{USD: 0.3}, ForkedFrom: "p", InheritedCost: &state.ClaudeCost{USD: 0.1}}
	if got := prices.Summed(fork).USD; math.Abs(got-0.2) > 1e-9 {
		t.Errorf("a fork's live figure in a sum: $%.4f, want $0.20", got)
	}
}
