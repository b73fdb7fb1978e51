package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
)

// TestContinued runs the scenarios of testdata/continued: a session, then
// a second `claude -p --resume` of it (with --fork-session in fork.json),
// and checks spcstr's cost of each session against Claude Code's. Claude
// Code 2.1.330 reports a resumed or forked session's total_cost_usd and
// modelUsage cumulatively: the second run's result line (and the
// cost-state line it writes) include the first run's cost.
func TestContinued(t *testing.T) {
	requireHarness(t)
	for _, name := range []string{"resume", "fork"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			file, err := filepath.Abs(filepath.Join("testdata", "continued", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			r := runScenario(t, scenario{name: name, file: file})
			first, ok1 := readResultFile(t, filepath.Join(r.out, "claude.stdout"))
			then, ok2 := readResultFile(t, filepath.Join(r.out, "claude.then.stdout"))
			if !ok1 || !ok2 {
				t.Fatalf("a run printed no result line (first %v, second %v)", ok1, ok2)
			}
			ex := exportAll(t, r)
			if name == "resume" {
				if len(ex.Sessions) != 1 {
					t.Fatalf("a resume is one session; the export has %d", len(ex.Sessions))
				}
				wantSession(t, ex, r.sid, then)
				wantEstimate(t, loadState(t, r, r.sid), then)
				return
			}
			checkFork(t, r, ex, first, then)
		})
	}
}

// exportAll is spcstr's JSON export of every session of the project.
func exportAll(t *testing.T, r *run) exported {
	t.Helper()
	cmd := exec.Command(spcstrBin, "export", "--all", "--format", "json", "--dir", r.project)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("spcstr export: %v\n%s", err, stderr.String())
	}
	var ex exported
	if err := json.Unmarshal(out, &ex); err != nil {
		t.Fatal(err)
	}
	return ex
}

// wantSession: the export's figure for session id is Claude Code's res,
// within 1 %, with its token totals, marked as Claude Code's.
func wantSession(t *testing.T, ex exported, id string, res claudeResult) {
	t.Helper()
	for _, s := range ex.Sessions {
		if s.SessionID != id {
			continue
		}
		var want [4]int64
		for _, m := range res.ModelUsage {
			want = [4]int64{want[0] + m.Input, want[1] + m.Output, want[2] + m.CacheRead, want[3] + m.CacheCreation}
		}
		if s.Cost.USD == nil || !within1pc(*s.Cost.USD, res.TotalCost) {
			t.Errorf("session %s: export cost.usd %v, Claude Code's total_cost_usd %v", id, s.Cost.USD, res.TotalCost)
		}
		if s.Cost.Source != pricing.SourceClaudeCode {
			t.Errorf("session %s: cost.source %q, want %q", id, s.Cost.Source, pricing.SourceClaudeCode)
		}
		if got := [4]int64{s.Tokens.Input, s.Tokens.Output, s.Tokens.CacheRead, s.Tokens.CacheCreation}; got != want {
			t.Errorf("session %s: export tokens %v, Claude Code's %v", id, got, want)
		}
		return
	}
	t.Errorf("the export has no session %s", id)
}

// checkFork: each session's figure is Claude Code's (the fork's includes
// its parent's history, as Claude Code counts it), and summing the two
// counts the copied history once.
func checkFork(t *testing.T, r *run, ex exported, first, then claudeResult) {
	t.Helper()
	if len(ex.Sessions) != 2 {
		t.Fatalf("a fork is a second session; the export has %d", len(ex.Sessions))
	}
	fork := ""
	for _, s := range ex.Sessions {
		if s.SessionID != r.sid {
			fork = s.SessionID
		}
	}
	wantSession(t, ex, r.sid, first)
	wantSession(t, ex, fork, then)
	wantEstimate(t, loadState(t, r, r.sid), first)
	wantEstimate(t, loadState(t, r, fork), then)

	// The fork's state says whose history it copied and how much of it
	// it inherited: every message of the parent's transcript.
	parent, child := loadState(t, r, r.sid), loadState(t, r, fork)
	if child.ForkedFrom != r.sid {
		t.Errorf("fork's forked_from %q, want its parent %s", child.ForkedFrom, r.sid)
	}
	if parent.ForkedFrom != "" || len(parent.Inherited) != 0 {
		t.Errorf("the parent is no fork: forked_from %q, inherited %v", parent.ForkedFrom, parent.Inherited)
	}
	var inh [4]int64
	for _, u := range child.Inherited {
		inh = [4]int64{inh[0] + u.Input, inh[1] + u.Output, inh[2] + u.CacheRead, inh[3] + u.CacheCreation}
	}
	pt := parent.Tokens
	if want := [4]int64{pt.Input, pt.Output, pt.CacheRead, pt.CacheCreation}; inh != want {
		t.Errorf("fork inherited %v, the parent's transcript holds %v", inh, want)
	}

	// Summed, as the dashboard's totals and cost-budget's day sum them,
	// the two sessions cost what Claude Code says the whole lineage cost:
	// the fork's cumulative figure (the parent's, then the fork's own).
	prices := pricing.Default()
	sum := prices.Summed(parent).USD + prices.Summed(child).USD
	if !within1pc(sum, then.TotalCost) {
		t.Errorf("parent + fork summed to $%.6f; Claude Code's figure for both runs is $%.6f (the parent's alone $%.6f)", sum, then.TotalCost, first.TotalCost)
	}
	// The export says so: the fork's inherited_usd, subtracted, gives the
	// same sum.
	var exSum float64
	for _, s := range ex.Sessions {
		if s.Cost.USD == nil {
			t.Fatalf("session %s has no cost in the export", s.SessionID)
		}
		exSum += *s.Cost.USD
		switch {
		case s.SessionID == fork && (s.Cost.ForkedFrom != r.sid || s.Cost.InheritedUSD == nil):
			t.Errorf("fork's export: forked_from %q, inherited_usd %v", s.Cost.ForkedFrom, s.Cost.InheritedUSD)
		case s.SessionID == fork:
			exSum -= *s.Cost.InheritedUSD
		case s.Cost.ForkedFrom != "" || s.Cost.InheritedUSD != nil:
			t.Errorf("parent's export says it is a fork: %q %v", s.Cost.ForkedFrom, s.Cost.InheritedUSD)
		}
	}
	if !within1pc(exSum, then.TotalCost) {
		t.Errorf("export: parent + fork − inherited_usd = $%.6f, Claude Code's $%.6f", exSum, then.TotalCost)
	}
	if naive := prices.Session(parent).USD + prices.Session(child).USD; within1pc(naive, then.TotalCost) {
		t.Errorf("the check cannot fail: counting the copy twice gives $%.6f too", naive)
	}
}

// wantEstimate: spcstr's own estimate, from the usage the recorder read
// in the session's transcript, is Claude Code's figure too (each message
// counted once, whichever run wrote it).
func wantEstimate(t *testing.T, st *state.Session, res claudeResult) {
	t.Helper()
	est := pricing.Default().Usage(st.Tokens.ByModel, st.Tokens, st.Model)
	if !est.Priced || !within1pc(est.USD, res.TotalCost) {
		t.Errorf("session %s: estimate $%.6f (priced %v), Claude Code's $%.6f", st.SessionID, est.USD, est.Priced, res.TotalCost)
	}
	var want [4]int64
	for _, m := range res.ModelUsage {
		want = [4]int64{want[0] + m.Input, want[1] + m.Output, want[2] + m.CacheRead, want[3] + m.CacheCreation}
	}
	if got := [4]int64{est.Tokens.Input, est.Tokens.Output, est.Tokens.CacheRead, est.Tokens.CacheCreation}; got != want {
		t.Errorf("session %s: estimate's tokens %v, Claude Code's %v", st.SessionID, got, want)
	}
}

// loadState reads a session's state.json.
func loadState(t *testing.T, r *run, id string) *state.Session {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.spcstr, "sessions", id, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st state.Session
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	return &st
}
