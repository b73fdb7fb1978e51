package feedback_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/e2e/harness"
	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/testshared"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// TestHarnessFeedbackLoop runs the real Claude Code CLI (offline, against
// the harness's scripted mock API) with spcstr as every hook: the model
// edits a .go file, spcstr blocks its Stop three times (review, test
// planning, testing), the model spawns backend-reviewer, test-lead and
// backend-tester whose answers carry the markers, and the fourth Stop is
// allowed. It runs through e2e/harness.
func TestHarnessFeedbackLoop(t *testing.T) {
	env := harness.Require(t)
	out := env.RunSpcstr(t, testshared.BuildSpcstr(t), filepath.Join("testdata", "harness", "feedback-loop.json"))

	// Claude Code's side: four Stops, the first with stop_hook_active
	// false, and spcstr answered the first three with a JSON block.
	var stops []bool
	for _, r := range jsonLines(t, filepath.Join(out, "captured.jsonl")) {
		if r["event"] == "Stop" {
			p := r["payload"].(map[string]any)
			stops = append(stops, p["stop_hook_active"] == true)
		}
	}
	if len(stops) != 4 || stops[0] || !stops[1] || !stops[2] || !stops[3] {
		t.Fatalf("Stop sequence (stop_hook_active) = %v, want [false true true true]", stops)
	}
	var answers []string
	for _, r := range jsonLines(t, filepath.Join(out, "hook_results.jsonl")) {
		if r["event"] == "Stop" {
			if code, _ := r["exit_code"].(float64); code != 0 {
				t.Errorf("Stop hook exited %v", code)
			}
			answers = append(answers, r["stdout"].(string))
		}
	}
	for i, a := range answers[:3] {
		var ans struct{ Decision, Reason string }
		if err := json.Unmarshal([]byte(a), &ans); err != nil || ans.Decision != "block" || !strings.Contains(ans.Reason, "spcstr feedback loop") {
			t.Fatalf("Stop %d answer = %q (%v), want a JSON block", i+1, a, err)
		}
	}
	if strings.TrimSpace(answers[3]) != "" {
		t.Fatalf("final Stop answer = %q, want none (allowed)", answers[3])
	}

	// The model continued after each block: the next main-conversation
	// request carries the block's reason, and every scripted turn was
	// served (none fell back to the mock's "done").
	wantAgents := []string{"backend-reviewer", "test-lead", "backend-tester"}
	blocksSeen, maxTurn := 0, -1.0
	for _, r := range jsonLines(t, filepath.Join(out, "requests.jsonl")) {
		if r["route"] != "main" {
			continue
		}
		if served, _ := r["served"].(map[string]any); served["_fallback"] == true {
			t.Errorf("main turn %v fell back to the mock's default answer", r["turn_index"])
		}
		if ti, _ := r["turn_index"].(float64); ti > maxTurn {
			maxTurn = ti
		}
		body, _ := json.Marshal(r["body"])
		if n := strings.Count(string(body), "Stop hook blocking error"); n > blocksSeen {
			if blocksSeen < len(wantAgents) && !strings.Contains(string(body), "spawn the `"+wantAgents[n-1]) {
				t.Errorf("block %d reached the model without asking for %s", n, wantAgents[n-1])
			}
			blocksSeen = n
		}
	}
	if blocksSeen != 3 || maxTurn != 8 {
		t.Fatalf("model saw %d blocks and reached turn %v, want 3 blocks and turn 8", blocksSeen, maxTurn)
	}

	// spcstr's side: feedback-loop.json and decisions.json.
	layout := state.Layout{Root: filepath.Join(out, "project")}
	ids, err := layout.SessionIDs()
	if err != nil || len(ids) != 1 {
		t.Fatalf("sessions = %v (%v)", ids, err)
	}
	st, err := feedback.Load(layout, ids[0])
	if err != nil || st == nil {
		t.Fatalf("feedback.Load = %v, %v", st, err)
	}
	if st.State != feedback.StateComplete || st.Iteration != 1 || st.MaxIterations != 5 || len(st.Domains) != 1 || st.Domains[0].Name != "backend" {
		t.Fatalf("status = %+v", st)
	}
	for i, ph := range st.Domains[0].Phases {
		if ph.Status != feedback.Pass || ph.Agent != wantAgents[i] || ph.AgentID == "" || ph.RanAt == nil {
			t.Errorf("phase %s = %+v", ph.Name, ph.Phase)
		}
	}
	if got := st.Domains[0].Files; len(got) != 1 || got[0] != "main.go" {
		t.Errorf("files = %v", got)
	}
	var reasons []string
	contexts := 0
	err = logs.ScanFile(layout.LogPath(logs.Name(logs.Decisions, "")), func(raw []byte) error {
		var rec gate.Record
		if err := json.Unmarshal(raw, &rec); err != nil {
			return err
		}
		if rec.Hook == "PostToolUse" && rec.Decision == gate.Allow && rec.Reason == gate.ReasonContext && strings.Contains(rec.Context, "backend code") {
			contexts++ // the edit's context is recorded as an allow
			return nil
		}
		if rec.Source != feedback.Source || rec.Hook != "Stop" || rec.RequestID == "" || rec.DryRun {
			t.Errorf("decision record = %+v", rec)
		}
		reasons = append(reasons, rec.Decision+" "+rec.Reason)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"block pending:backend=review", "block pending:backend=test_planning", "block pending:backend=testing", "allow complete"}
	if strings.Join(reasons, "|") != strings.Join(want, "|") || contexts != 1 {
		t.Fatalf("decisions = %q (%d context records), want %q and 1", reasons, contexts, want)
	}
}

// jsonLines reads one of a run's JSON Lines files.
func jsonLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	v, err := harness.ReadJSONL[map[string]any](path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
