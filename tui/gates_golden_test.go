package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
)

// gates logs, for the busy session, the gate activity a user must see on
// its row and in the Decisions view: a Write denied by a requirement (its
// call logged by the same hook call), a Stop blocked by a strategy, an ask,
// a dry-run block, and a gate that failed open; and a reviewer's result
// the feedback loop ignored. The background session gets one deny.
func (f *fixture) gates(t testing.TB) {
	t.Helper()
	root := f.layout.Root
	at := func(d time.Duration) time.Time { return ago(d) }
	f.log(t, "PreToolUse", idBusy, at(6*time.Minute), map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": filepath.Join(root, "health.go")}})
	f.decide(t, gate.Record{SessionID: idBusy, Timestamp: at(6 * time.Minute), Source: "requirements:commit_plan", Hook: "PreToolUse",
		Decision: gate.Deny, Reason: "unsatisfied", Message: "Plan the change first: run /plan", Enforcement: gate.Enforced})
	f.log(t, "PreToolUse", idBusy, at(5*time.Minute), map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "git push --force"}})
	f.decide(t, gate.Record{SessionID: idBusy, Timestamp: at(5 * time.Minute), Source: "permission-policy", Hook: "PreToolUse",
		Decision: gate.Ask, Reason: "ask", Message: "force-push needs a human", Enforcement: gate.Enforced})
	f.log(t, "Stop", idBusy, at(4*time.Minute), map[string]any{"last_assistant_message": "Done."})
	f.decide(t, gate.Record{SessionID: idBusy, Timestamp: at(4 * time.Minute), Source: "strategy:ship-check", Hook: "Stop",
		Decision: gate.Block, Reason: "exit-2", Message: "tests fail: fix TestHealthz before stopping", Enforcement: gate.Enforced})
	f.decide(t, gate.Record{SessionID: idBusy, Timestamp: at(3 * time.Minute), Source: "strategy:clean-state", Hook: "Stop",
		Decision: gate.Block, Reason: "uncommitted", Message: "uncommitted changes: main.go", DryRun: true, Enforcement: gate.DryRunned})
	f.log(t, "PreToolUse", idBusy, at(2*time.Minute), map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": filepath.Join(root, "main.go")}})
	f.decide(t, gate.Record{SessionID: idBusy, Timestamp: at(2 * time.Minute), Source: "strategy:lint", Hook: "PreToolUse",
		Decision: gate.Allow, Reason: gate.ReasonGateError, Error: "lint: exec: \"golangci-lint\": not found", Enforcement: gate.FailedOpen})
	f.decide(t, gate.Record{SessionID: idBg, Timestamp: at(time.Minute), Source: "requirements:pre_commit_review", Hook: "PreToolUse",
		Decision: gate.Deny, Message: "Review before committing", Enforcement: gate.Enforced})
}

// TestGatesGolden: the list, the Decisions view and the Loop pane of a
// busy project at 60, 120 and 200 columns.
func TestGatesGolden(t *testing.T) {
	cases := []struct {
		name string
		keys []string
	}{
		{"gates-list", nil},
		{"gates-decisions", []string{"3", "d"}},
		{"gates-loop", []string{"5"}},
	}
	for _, w := range []int{60, 120, 200} {
		for _, c := range cases {
			name := c.name + "-" + itoa(w)
			t.Run(name, func(t *testing.T) {
				f := newFixture(t)
				f.populate(t)
				f.policies(t)
				f.feedbackOn(t)
				f.ignoredResult(t)
				f.gates(t)
				m := start(t, f, w, 24)
				m = send(t, m, press(c.keys...)...)
				fr := frame(t, m)
				checkSize(t, name, fr, w, 24)
				golden(t, name, fr)
			})
		}
	}
}

// TestRowsCountGates: without opening a view, each row says how many
// times a gate denied or blocked it, asked, or failed open; the Decisions
// view names the gate, the call and what became of each.
func TestRowsCountGates(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	f.gates(t)
	m := start(t, f, 200, 30)
	p := plain(m)
	for _, want := range []string{"⊘2 ?1 ↷1", "⊘1"} {
		if !strings.Contains(p, want) {
			t.Errorf("the list lacks %q:\n%s", want, p)
		}
	}
	m = send(t, m, press("3", "d")...)
	p = plain(m)
	for _, want := range []string{
		"deny PreToolUse: Plan the change first: run /plan · Write",
		"block Stop (kept working): tests fail: fix TestHealthz",
		"(dry run): uncommitted changes",
		"(failed open): lint:",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the Decisions view lacks %q:\n%s", want, p)
		}
	}
	// ? explains the marks (a tall pane shows the whole help).
	h := send(t, start(t, f, 120, 200), press("?")...)
	for _, want := range []string{"⊘2", "?1", "↷1", "failed open"} {
		if !strings.Contains(plain(h), want) {
			t.Errorf("the help lacks %q", want)
		}
	}
	// The Stop block's full view says it kept Claude working.
	m = send(t, m, press("k", "k", "enter")...)
	if p := plain(m); !strings.Contains(p, "Claude was kept working") {
		t.Errorf("the Stop block's view does not say Claude was kept working:\n%s", p)
	}
}

// ignoredResult adds to the busy session's loop (policies) a reviewer's
// result the loop did not count.
func (f *fixture) ignoredResult(t testing.TB) {
	t.Helper()
	fp, _ := f.layout.FeedbackPath(idBusy)
	b, err := os.ReadFile(fp)
	if err != nil {
		t.Fatal(err)
	}
	var loop map[string]any
	if err := json.Unmarshal(b, &loop); err != nil {
		t.Fatal(err)
	}
	loop["history"] = []any{map[string]any{"at": ago(3 * time.Minute), "kind": "ignored", "agent": "code-reviewer", "marker": "REVIEW_APPROVED",
		"note": "agent is not a configured reviewer, test lead or tester of backend"}}
	writeJSON(t, fp, loop)
}
