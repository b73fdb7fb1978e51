package strategy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/e2e/harness"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/testshared"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// runScenario runs the real Claude Code CLI (offline, through e2e/harness)
// on one scenario with spcstr as every hook, checks the scenario's expect
// block, and returns the output folder.
func runScenario(t *testing.T, name string) string {
	t.Helper()
	return harness.Require(t).RunSpcstr(t, testshared.BuildSpcstr(t), filepath.Join("testdata", "harness", name+".json"))
}

// results pairs captured payloads with spcstr's answers; every hook must
// have exited 0.
func results(t *testing.T, out string) []harness.HookRun {
	t.Helper()
	runs, err := harness.HookRuns(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.ExitCode != 0 {
			t.Errorf("%s hook exited %d: %s", r.Event, r.ExitCode, r.Stderr)
		}
	}
	return runs
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

func decisions(t *testing.T, out string) []gate.Record {
	t.Helper()
	layout := state.Layout{Root: filepath.Join(out, "project")}
	var recs []gate.Record
	err := logs.ScanFile(layout.LogPath(logs.Name(logs.Decisions, "")), func(raw []byte) error {
		var rec gate.Record
		if err := json.Unmarshal(raw, &rec); err != nil {
			return err
		}
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestHarnessAgentFirst: the main agent's Edit of backend code is denied
// with the developer agent to spawn; the model spawns it and the agent's
// own Edit goes through.
func TestHarnessAgentFirst(t *testing.T) {
	out := runScenario(t, "agent-first")
	var edits []harness.HookRun
	for _, r := range results(t, out) {
		if r.Event == "PreToolUse" && r.Payload["tool_name"] == "Edit" {
			edits = append(edits, r)
		}
	}
	if len(edits) != 2 {
		t.Fatalf("%d PreToolUse:Edit, want 2", len(edits))
	}
	hso, _ := edits[0].Answer["hookSpecificOutput"].(map[string]any)
	if edits[0].Payload["agent_id"] != nil || hso["permissionDecision"] != "deny" ||
		!strings.Contains(hso["permissionDecisionReason"].(string), "spawn the backend-developer agent") {
		t.Fatalf("main agent's Edit: payload agent_id %v, answer %v", edits[0].Payload["agent_id"], edits[0].Answer)
	}
	if edits[1].Payload["agent_id"] == nil || edits[1].Answer != nil {
		t.Fatalf("developer agent's Edit: agent_id %v, answer %v", edits[1].Payload["agent_id"], edits[1].Answer)
	}
	data, err := os.ReadFile(filepath.Join(out, "project", "main.go"))
	if err != nil || !strings.Contains(string(data), `println("hello")`) {
		t.Fatalf("main.go = %q (%v)", data, err)
	}
	// The model read the reason before it spawned the agent.
	seen := false
	for _, r := range jsonLines(t, filepath.Join(out, "requests.jsonl")) {
		body, _ := json.Marshal(r["body"])
		if r["route"] == "main" && strings.Contains(string(body), "spawn the backend-developer agent") {
			seen = true
		}
	}
	if !seen {
		t.Error("the deny reason never reached the model")
	}
	var got []string
	for _, rec := range decisions(t, out) {
		if rec.Source == "strategy:agent-first" {
			got = append(got, rec.Hook+" "+rec.Decision+" "+rec.Reason)
		}
	}
	if strings.Join(got, "|") != "PreToolUse deny delegate:backend-developer" {
		t.Fatalf("agent-first decisions = %q", got)
	}
}

// TestHarnessSkillCompliance: a subagent that skipped the output skill
// writes a stray report and edits code; its SubagentStop is blocked with
// the revert plan, it deletes the report, and the next stops pass.
func TestHarnessSkillCompliance(t *testing.T) {
	out := runScenario(t, "skill-compliance")
	project := filepath.Join(out, "project")
	var subStops []harness.HookRun
	var mainStops []harness.HookRun
	for _, r := range results(t, out) {
		switch r.Event {
		case "SubagentStop":
			subStops = append(subStops, r)
		case "Stop":
			mainStops = append(mainStops, r)
		}
	}
	if len(subStops) != 2 {
		t.Fatalf("%d SubagentStops, want 2", len(subStops))
	}
	first := subStops[0].Answer
	reason, _ := first["reason"].(string)
	if first["decision"] != "block" {
		t.Fatalf("first SubagentStop answer = %v", first)
	}
	q := func(rel string) string { return `"` + filepath.Join(project, rel) + `"` }
	for _, want := range []string{
		"SKILL COMPLIANCE FAILURE DETECTED",
		"- report.md: Missing persisting-agent-outputs in skills_invoked",
		"rm " + q("report.md"),
		"REVERT NON-COMPLIANT CODE CHANGES (safe - no prior changes):\n   git checkout -- " + q("main.go") + "\n   rm " + q("new.go"),
		"MANUAL REVIEW REQUIRED (has prior uncommitted changes):\n- " + filepath.Join(project, "shared.go") + ": HAS PRIOR UNCOMMITTED CHANGES",
	} {
		if !strings.Contains(reason, want) {
			t.Errorf("block reason lacks %q:\n%s", want, reason)
		}
	}
	if subStops[1].Answer != nil && subStops[1].Answer["decision"] == "block" {
		t.Errorf("second SubagentStop blocked: %v", subStops[1].Answer)
	}
	for _, s := range mainStops {
		if s.Answer != nil && s.Answer["decision"] == "block" {
			t.Errorf("main Stop blocked: %v", s.Answer)
		}
	}
	if _, err := os.Stat(filepath.Join(project, "report.md")); err == nil {
		t.Error("report.md is still there")
	}
	var got []string
	for _, rec := range decisions(t, out) {
		if rec.Source == "strategy:output-location" && rec.Decision != "" {
			got = append(got, rec.Hook+" "+rec.Decision+" "+rec.Reason)
		}
	}
	want := "SubagentStop block skill-compliance-failure:1|SubagentStop allow clean|Stop allow clean"
	if strings.Join(got, "|") != want {
		t.Fatalf("output-location decisions = %q, want %q", got, want)
	}
}

// TestHarnessCommandStrategy: a command strategy (the user's own hook
// script) denies a Bash call; Claude Code does not run it and the model
// reads the script's reason.
func TestHarnessCommandStrategy(t *testing.T) {
	out := runScenario(t, "command-strategy")
	var bash []harness.HookRun
	for _, r := range results(t, out) {
		if r.Event == "PreToolUse" && r.Payload["tool_name"] == "Bash" {
			bash = append(bash, r)
		}
	}
	if len(bash) != 1 {
		t.Fatalf("%d PreToolUse:Bash, want 1", len(bash))
	}
	hso, _ := bash[0].Answer["hookSpecificOutput"].(map[string]any)
	const reason = "Force pushes are not allowed in this repository (no-force-push hook)."
	if hso["permissionDecision"] != "deny" || hso["permissionDecisionReason"] != reason {
		t.Fatalf("answer = %v", bash[0].Answer)
	}
	seen := false
	for _, r := range jsonLines(t, filepath.Join(out, "requests.jsonl")) {
		body, _ := json.Marshal(r["body"])
		if r["route"] == "main" && strings.Contains(string(body), "no-force-push hook") {
			seen = true
		}
	}
	if !seen {
		t.Error("the command strategy's reason never reached the model")
	}
	var got []string
	for _, rec := range decisions(t, out) {
		if rec.Source == "strategy:no-force-push" {
			got = append(got, rec.Hook+" "+rec.Decision+" "+rec.Reason+" "+rec.Enforcement)
		}
	}
	if strings.Join(got, "|") != "PreToolUse deny exit-2 enforced" {
		t.Fatalf("decisions = %q", got)
	}
}

// TestHarnessPermissionPolicy: Claude Code follows permission-policy's
// answers to PermissionRequest: an allowed Bash call runs without a
// dialog, a denied one does not and the model reads why, and a call no rule
// matches is left to Claude Code (-p mode denies it).
func TestHarnessPermissionPolicy(t *testing.T) {
	out := runScenario(t, "permission-policy")
	var answers []string
	for _, r := range results(t, out) {
		if r.Event == "PermissionRequest" {
			hso, _ := r.Answer["hookSpecificOutput"].(map[string]any)
			d, _ := hso["decision"].(map[string]any)
			answers = append(answers, fmt.Sprint(d["behavior"]))
		}
	}
	if strings.Join(answers, ",") != "allow,deny,<nil>" {
		t.Fatalf("PermissionRequest answers = %q", answers)
	}
	seen := false
	for _, r := range jsonLines(t, filepath.Join(out, "requests.jsonl")) {
		body, _ := json.Marshal(r["body"])
		if strings.Contains(string(body), "spcstr permission-policy denied Bash: rm -f from-policy.txt (deny rule 0). Keep the files.") {
			seen = true
		}
	}
	if !seen {
		t.Error("the deny message never reached the model")
	}
	var got []string
	for _, rec := range decisions(t, out) {
		if rec.Source == "strategy:permission-policy" {
			got = append(got, rec.Decision+" "+rec.Reason)
		}
	}
	if strings.Join(got, "|") != "allow allow:0|deny deny:0" {
		t.Fatalf("permission-policy decisions = %q", got)
	}
}
