package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
)

// TestForkChain runs testdata/continued/fork-chain.json: a session with a
// subagent on haiku, a fork of it and a fork of that fork, through the
// real CLI. Claude Code copies only the main transcript into a fork but
// counts the parent's whole figure in the fork's: each fork's inherited
// part must be its parent's figure (the subagent included), and every sum
// of the three sessions must be the lineage's real spend, the last fork's
// cumulative figure, not more.
func TestForkChain(t *testing.T) {
	requireHarness(t)
	for _, tc := range []struct {
		name string
		runs []string
	}{
		{"fork-chain", []string{"claude.stdout", "claude.then.stdout", "claude.then3.stdout"}},
		// Parallel agents and a compaction before the fork (testdata/continued/fork-compact.json).
		{"fork-compact", []string{"claude.stdout", "claude.then.stdout"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkLineage(t, tc.name, tc.runs)
		})
	}
}

// checkLineage runs a scenario of testdata/continued whose runs each fork
// the previous one, and checks every figure and sum of the lineage.
func checkLineage(t *testing.T, name string, runs []string) {
	file, err := filepath.Abs(filepath.Join("testdata", "continued", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	r := runScenario(t, scenario{name: name, file: file})
	n := len(runs)
	res := make([]claudeResult, n)
	for i, name := range runs {
		var ok bool
		if res[i], ok = readResultFile(t, filepath.Join(r.out, name)); !ok {
			t.Fatalf("%s has no result line", name)
		}
	}
	ex := exportAll(t, r)
	if len(ex.Sessions) != n {
		t.Fatalf("a root and its forks are %d sessions; the export has %d", n, len(ex.Sessions))
	}
	// The lineage, root first: each fork names the previous session.
	chain := []string{r.sid}
	for len(chain) < n {
		next := ""
		for _, s := range ex.Sessions {
			if s.Cost.ForkedFrom == chain[len(chain)-1] {
				next = s.SessionID
			}
		}
		if next == "" {
			t.Fatalf("no session says it was forked from %s", chain[len(chain)-1])
		}
		chain = append(chain, next)
	}
	if _, ok := res[0].ModelUsage["claude-haiku-5-5"]; !ok {
		t.Fatalf("the root's subagent did not run on haiku: %v", res[0].ModelUsage)
	}
	prices := pricing.Default()
	var summed pricing.Total
	var exSum float64
	for i, id := range chain {
		wantSession(t, ex, id, res[i])
		st := loadState(t, r, id)
		summed.Add(prices.Summed(st))
		for _, s := range ex.Sessions {
			if s.SessionID != id {
				continue
			}
			exSum += *s.Cost.USD
			if i == 0 {
				if s.Cost.InheritedUSD != nil {
					t.Errorf("the root says it inherited %v", *s.Cost.InheritedUSD)
				}
				continue
			}
			// A fork inherits its parent's whole figure at the fork point.
			if s.Cost.InheritedUSD == nil || !within1pc(*s.Cost.InheritedUSD, res[i-1].TotalCost) {
				t.Errorf("fork %d inherited_usd %v, its parent's figure was $%.6f", i, s.Cost.InheritedUSD, res[i-1].TotalCost)
			} else {
				exSum -= *s.Cost.InheritedUSD
			}
			wantHaikuInherited(t, st, prices)
		}
	}
	lineage := res[n-1].TotalCost
	if !within1pc(summed.USD, lineage) {
		t.Errorf("the dashboard's sum of the three sessions is $%.6f; the lineage spent $%.6f", summed.USD, lineage)
	}
	if !within1pc(exSum, lineage) {
		t.Errorf("export: Σ usd − inherited_usd = $%.6f; the lineage spent $%.6f", exSum, lineage)
	}
	// spcstr cost, over every recorded project (here: this one), says so too.
	cmd := exec.Command(spcstrBin, "cost", "--json", "--by", "model")
	cmd.Env = append(os.Environ(), "SPCSTR_PROJECTS="+filepath.Join(r.out, "spcstr-projects.json"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("spcstr cost: %v", err)
	}
	var rep struct {
		TotalUSD float64 `json:"total_usd"`
		Sessions int     `json:"sessions"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != n || !within1pc(rep.TotalUSD, lineage) {
		t.Errorf("spcstr cost: %d sessions, total_usd $%.6f; the lineage spent $%.6f", rep.Sessions, rep.TotalUSD, lineage)
	}
	var naive float64
	for _, x := range res {
		naive += x.TotalCost
	}
	if within1pc(naive, lineage) {
		t.Errorf("the check cannot fail: summing the figures whole gives $%.6f too", naive)
	}
}

// wantHaikuInherited: a fork never ran haiku itself (only its ancestor's
// subagent did), so its haiku line is wholly inherited.
func wantHaikuInherited(t *testing.T, st *state.Session, prices pricing.Table) {
	t.Helper()
	for _, m := range prices.Session(st).Models {
		if pricing.Key(m.Model) == "claude-haiku-5-5" && !m.OnlyInherited() {
			t.Errorf("fork %s: its haiku line ($%.6f) is not marked inherited ($%.6f inherited)", st.SessionID, m.USD, m.InheritedUSD)
		}
	}
}

// TestUnknownModel runs testdata/cost/unknown-model.json: a subagent on a
// model no price table knows. Claude Code prices it at another model's
// rates and says so (hasUnknownModelCost). spcstr's figure is the priced
// part (the main chain's), a lower bound; the unknown model is unpriced
// with its tokens; Claude Code's whole figure is kept apart as its guess.
func TestUnknownModel(t *testing.T) {
	requireHarness(t)
	file, err := filepath.Abs(filepath.Join("testdata", "cost", "unknown-model.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := runScenario(t, scenario{name: "unknown-model", file: file})
	res, ok := readResultFile(t, filepath.Join(r.out, "claude.stdout"))
	if !ok {
		t.Fatal("claude.stdout has no result line")
	}
	const mystery = "claude-mystery-9-9"
	mu, ok := res.ModelUsage[mystery]
	if !ok {
		t.Fatalf("the subagent did not run on %s: %v", mystery, res.ModelUsage)
	}
	var priced float64
	for m, u := range res.ModelUsage {
		if m != mystery {
			priced += u.CostUSD
		}
	}
	ex := exportAll(t, r)
	if len(ex.Sessions) != 1 {
		t.Fatalf("one session; the export has %d", len(ex.Sessions))
	}
	c := ex.Sessions[0].Cost
	if c.USD == nil || !within1pc(*c.USD, priced) || !c.LowerBound {
		t.Errorf("cost.usd %v lower_bound %v; want the priced part $%.6f as a lower bound (Claude Code's guess $%.6f)", c.USD, c.LowerBound, priced, res.TotalCost)
	}
	if len(c.Unpriced) != 1 || c.Unpriced[0] != mystery {
		t.Errorf("unpriced_models %v, want [%s]", c.Unpriced, mystery)
	}
	if c.ClaudeCodeGuess == nil || !within1pc(*c.ClaudeCodeGuess, res.TotalCost) {
		t.Errorf("claude_code_guess_usd %v, want Claude Code's total $%.6f", c.ClaudeCodeGuess, res.TotalCost)
	}
	found := false
	for _, m := range c.Models {
		if m.Model == mystery {
			found = true
			if m.USD != nil || m.Input != mu.Input || m.Output != mu.Output {
				t.Errorf("models[%s]: usd %v, tokens %d/%d; want null and Claude Code's %d/%d", mystery, m.USD, m.Input, m.Output, mu.Input, mu.Output)
			}
		}
	}
	if !found {
		t.Errorf("models[] has no %s line", mystery)
	}
	// The dashboard's row and header say it is a lower bound.
	st := loadState(t, r, r.sid)
	sc := pricing.Default().Session(st)
	if got := pricing.RowFigure(sc); got == "" || got[:len("≥")] != "≥" {
		t.Errorf("row figure %q, want a lower bound", got)
	}
	var total pricing.Total
	total.Add(pricing.Default().Summed(st))
	if got := total.String(); got[:len("≥")] != "≥" {
		t.Errorf("header total %q, want all ≥…", got)
	}
}
