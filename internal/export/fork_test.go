package export_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/export"
	"github.com/dylan-gluck/spcstr/state"
)

// A fork's export keeps its own figure (Claude Code's, which includes the
// copied history) and says what of it was inherited and from whom, so a
// sum of sessions can count the copy once; a session that is no fork says
// nothing of the kind.
func TestForkCost(t *testing.T) {
	p := newProject(t)
	fork := newSession("fork-1", t0)
	fork.ClaudeCost = &state.ClaudeCost{USD: 1.5, ByModel: map[string]state.ClaudeModelCost{"claude-opus-5-5": {Output: 75_000, USD: 1.5}}}
	fork.ForkedFrom = "parent-1"
	fork.Inherited = map[string]state.ModelUsage{"claude-opus-5-5": {Output: 50_000}} // $1.00 at $20 per million output
	p.session(fork)
	plain := newSession("plain-1", t0)
	plain.ClaudeCost = &state.ClaudeCost{USD: 0.25, ByModel: map[string]state.ClaudeModelCost{"claude-opus-5-5": {Output: 12_500, USD: 0.25}}}
	p.session(plain)

	opt := export.Options{Now: fixedNow, Sources: fakeSources, Generator: "spcstr test"}
	var sums []*export.Summary
	for _, id := range []string{"fork-1", "plain-1"} {
		sum, err := export.Build(context.Background(), p.l, id, opt)
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, sum)
	}
	c := sums[0].Cost
	if c.USD == nil || *c.USD != 1.5 || c.ForkedFrom != "parent-1" || c.InheritedUSD == nil || *c.InheritedUSD != 1 {
		t.Errorf("fork's cost: usd %v, forked_from %q, inherited_usd %v; want 1.5, parent-1, 1", c.USD, c.ForkedFrom, c.InheritedUSD)
	}
	if c := sums[1].Cost; c.ForkedFrom != "" || c.InheritedUSD != nil {
		t.Errorf("a session that is no fork: forked_from %q, inherited_usd %v", c.ForkedFrom, c.InheritedUSD)
	}
	var md, js bytes.Buffer
	if err := export.WriteMarkdown(&md, sums); err != nil {
		t.Fatal(err)
	}
	if err := export.WriteJSON(&js, sums, opt); err != nil {
		t.Fatal(err)
	}
	validate(t, js.Bytes())
	if n := strings.Count(js.String(), `"inherited_usd"`); n != 2 {
		t.Errorf("inherited_usd appears %d times, want twice (the fork's cost and its one model's)", n)
	}
	if !strings.Contains(md.String(), "- **Forked from**: parent-1 (its parent's figure at the fork point, $1.00 of the cost above") {
		t.Errorf("markdown does not say the fork's origin:\n%s", md.String())
	}
}

// A fork's inheritance is its parent's whole figure at the fork point
// (state.Session.InheritedCost): the parent's subagent on another model
// included, which the fork never ran itself. inherited_usd is that figure,
// and the model only the parent ran is marked as wholly inherited.
func TestForkInheritsParentFigure(t *testing.T) {
	p := newProject(t)
	fork := newSession("fork-2", t0)
	fork.ClaudeCost = &state.ClaudeCost{USD: 0.29, ByModel: map[string]state.ClaudeModelCost{
		"claude-opus-5-5":  {Output: 10_000, USD: 0.25},
		"claude-haiku-5-5": {Output: 8_000, USD: 0.04},
	}}
	fork.ForkedFrom = "fork-1"
	fork.Inherited = map[string]state.ModelUsage{"claude-opus-5-5": {Output: 1_000}} // the copied main lines only: $0.02
	fork.InheritedCost = &state.ClaudeCost{USD: 0.13, ByModel: map[string]state.ClaudeModelCost{
		"claude-opus-5-5":  {Output: 4_000, USD: 0.09},
		"claude-haiku-5-5": {Output: 8_000, USD: 0.04},
	}}
	p.session(fork)
	sum, err := export.Build(context.Background(), p.l, "fork-2", export.Options{Now: fixedNow, Sources: fakeSources, Generator: "spcstr test"})
	if err != nil {
		t.Fatal(err)
	}
	c := sum.Cost
	if c.InheritedUSD == nil || *c.InheritedUSD != 0.13 {
		t.Errorf("inherited_usd %v, want the parent's figure 0.13 (not the copied lines' 0.02)", c.InheritedUSD)
	}
	want := map[string]float64{"claude-haiku-5-5": 0.04, "claude-opus-5-5": 0.09}
	for _, m := range c.Models {
		if m.InheritedUSD == nil || *m.InheritedUSD != want[m.Model] {
			t.Errorf("model %s: inherited_usd %v, want %v", m.Model, m.InheritedUSD, want[m.Model])
		}
	}
}
