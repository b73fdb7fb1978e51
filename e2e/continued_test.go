package e2e

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/pricing"
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

// checkFork: each session's figure is Claude Code's.
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
}
