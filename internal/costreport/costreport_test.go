package costreport

import (
	"context"
	"math"
	"os"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
)

func cc(usd float64, by map[string]float64) *state.ClaudeCost {
	c := &state.ClaudeCost{USD: usd, ByModel: map[string]state.ClaudeModelCost{}}
	for m, u := range by {
		c.ByModel[m] = state.ClaudeModelCost{Output: 1000, USD: u}
	}
	return c
}

// sessions writes sessions into a new project.
func sessions(t *testing.T, ss ...*state.Session) string {
	t.Helper()
	root := t.TempDir()
	l := state.Layout{Root: root}
	if err := os.MkdirAll(l.SessionsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if _, err := l.Update(context.Background(), s.SessionID, s.CreatedAt, state.UpdateOptions{}, func(st *state.Session, _ bool) error {
			id, created := st.SessionID, st.CreatedAt
			*st = *s
			st.SessionID, st.CreatedAt = id, created
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// A root, its fork (inheriting the root's figure, its haiku subagent
// included) and a session on an unknown model in one project, a live
// session in another: the total is what each spent itself, Σ usd −
// inherited_usd, and every grouping adds up to it.
func TestReport(t *testing.T) {
	day1 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	day2 := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	root := &state.Session{SessionID: "root", CreatedAt: day1, LastEventAt: day1.Add(time.Hour),
		ClaudeCost: cc(0.10, map[string]float64{"claude-opus-5-5": 0.06, "claude-haiku-5-5": 0.04})}
	fork := &state.Session{SessionID: "fork", CreatedAt: day1.Add(2 * time.Hour), LastEventAt: day1.Add(3 * time.Hour), ForkedFrom: "root",
		ClaudeCost:    cc(0.13, map[string]float64{"claude-opus-5-5": 0.09, "claude-haiku-5-5": 0.04}),
		InheritedCost: cc(0.10, map[string]float64{"claude-opus-5-5": 0.06, "claude-haiku-5-5": 0.04})}
	unknown := &state.Session{SessionID: "mystery", CreatedAt: day2, LastEventAt: day2.Add(time.Hour),
		ClaudeCost: &state.ClaudeCost{USD: 0.5, UnknownModel: true, ByModel: map[string]state.ClaudeModelCost{
			"claude-opus-5-5": {Output: 1000, USD: 0.2}, "claude-mystery-9-9": {Output: 1000, USD: 0.3}}}}
	live := &state.Session{SessionID: "live", Model: "claude-opus-5-5", CreatedAt: day2.Add(6 * time.Hour), LastEventAt: day2.Add(7 * time.Hour),
		Live: &state.LiveCost{USD: 1.25, Input: 100, Output: 10}}
	p1, p2 := sessions(t, root, fork, unknown), sessions(t, live)

	want := 0.10 + 0.03 + 0.2 + 1.25
	var exported float64 // as export --all adds up: usd − inherited_usd
	for _, s := range []*state.Session{root, fork, unknown, live} {
		sc := pricing.Default().Session(s)
		exported += sc.USD - sc.InheritedUSD
	}
	if math.Abs(exported-want) > 1e-9 {
		t.Fatalf("the sessions' own spend is $%.4f by export, want $%.4f", exported, want)
	}
	for _, by := range Groupings {
		r, err := Build([]string{p1, p2}, Options{By: by, Loc: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, g := range r.Groups {
			sum += g.USD
		}
		if math.Abs(r.TotalUSD-want) > 1e-9 || math.Abs(sum-want) > 1e-9 || !r.LowerBound || r.Sessions != 4 {
			t.Errorf("by %s: total $%.4f, groups $%.4f, lower bound %v, %d sessions; want $%.4f, a lower bound, 4", by, r.TotalUSD, sum, r.LowerBound, r.Sessions, want)
		}
		wantGroups := map[string]int{ByDay: 2, ByWeek: 2, ByMonth: 1, ByProject: 2, ByModel: 2, ByBlock: 3}[by]
		if len(r.Groups) != wantGroups {
			t.Errorf("by %s: %d groups %+v, want %d", by, len(r.Groups), r.Groups, wantGroups)
		}
	}
	r, _ := Build([]string{p1, p2}, Options{By: ByModel, Loc: time.UTC})
	for _, g := range r.Groups {
		if g.Key == "claude-haiku-5-5" && math.Abs(g.USD-0.04) > 1e-9 {
			t.Errorf("haiku $%.4f: the fork's inherited haiku counted again", g.USD)
		}
	}
	r, _ = Build([]string{p1, p2}, Options{By: ByDay, Loc: time.UTC, Since: day2, Until: day2.Add(24 * time.Hour)})
	if r.Sessions != 2 || math.Abs(r.TotalUSD-1.45) > 1e-9 {
		t.Errorf("--since/--until one day: %d sessions $%.4f, want 2, $1.45", r.Sessions, r.TotalUSD)
	}
}
