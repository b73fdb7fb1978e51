package requirements_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/e2e/harness"
	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/internal/testshared"
)

// TestHarnessReqGate runs the real Claude Code CLI (offline, through
// e2e/harness) with spcstr as every hook: the scripted model tries an
// Edit, is denied by the requirements gate, runs the project skill that
// satisfies the requirement, edits again and stops. It checks what Claude
// Code did and what spcstr recorded.
func TestHarnessReqGate(t *testing.T) {
	env := harness.Require(t)
	// The scenario's own expect block is checked by RunSpcstr.
	out := env.RunSpcstr(t, testshared.BuildSpcstr(t), filepath.Join("testdata", "harness", "req-gate.json"))

	// What Claude Code did.
	recs := readLines[captured](t, filepath.Join(out, "captured.jsonl"))
	results := readLines[hookResult](t, filepath.Join(out, "hook_results.jsonl"))
	if len(recs) != len(results) {
		t.Fatalf("%d captured payloads but %d hook results", len(recs), len(results))
	}
	var edits []int
	skillDone, editDone, stops := -1, -1, 0
	for i, r := range recs {
		switch {
		case r.Event == "PreToolUse" && r.Payload.ToolName == "Edit":
			edits = append(edits, i)
		case r.Event == "PostToolUse" && r.Payload.ToolName == "Skill" && bytes.Contains(r.Payload.ToolInput, []byte(`"design-check"`)):
			skillDone = i
		case r.Event == "PostToolUse" && r.Payload.ToolName == "Edit":
			editDone = i
		case r.Event == "Stop":
			stops++
			if r.Payload.StopHookActive || strings.Contains(results[i].Stdout, "block") {
				t.Errorf("Stop %d: stop_hook_active=%v, answer %q", stops, r.Payload.StopHookActive, results[i].Stdout)
			}
		}
	}
	if len(edits) != 2 || stops != 1 {
		t.Fatalf("Edit attempts %v, Stops %d; events: %v", edits, stops, eventNames(recs))
	}
	denied, allowed := recs[edits[0]], recs[edits[1]]
	if !strings.Contains(results[edits[0]].Stdout, `"permissionDecision":"deny"`) || !strings.Contains(results[edits[0]].Stdout, "design_reviewed") {
		t.Errorf("first Edit's answer: %s", results[edits[0]].Stdout)
	}
	if results[edits[1]].Stdout != "" {
		t.Errorf("second Edit's answer: %s", results[edits[1]].Stdout)
	}
	for _, r := range recs {
		if (r.Event == "PostToolUse" || r.Event == "PostToolUseFailure") && r.Payload.ToolUseID == denied.Payload.ToolUseID {
			t.Errorf("the denied Edit (%s) ran: %s", denied.Payload.ToolUseID, r.Event)
		}
	}
	if !(edits[0] < skillDone && skillDone < edits[1] && edits[1] < editDone) {
		t.Errorf("order: denied edit %d, skill %d, edit %d, edit done %d", edits[0], skillDone, edits[1], editDone)
	}
	if recs[editDone].Payload.ToolUseID != allowed.Payload.ToolUseID {
		t.Errorf("PostToolUse:Edit is for %s, want %s", recs[editDone].Payload.ToolUseID, allowed.Payload.ToolUseID)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "project", "notes.txt")); string(b) != "hello\nharness\n" {
		t.Errorf("notes.txt = %q", b)
	}
	// The model was told why (Claude Code passes the deny reason on).
	if b, _ := os.ReadFile(filepath.Join(out, "requests.jsonl")); !bytes.Contains(b, []byte("Unsatisfied requirements: this Edit call is blocked")) {
		t.Error("the deny reason never reached the model")
	}

	// What spcstr recorded.
	project := filepath.Join(out, "project")
	loc := requirements.Locate(project)
	if loc.Path != filepath.Join(project, ".git", "requirements", "main.json") {
		t.Errorf("state file = %s", loc.Path)
	}
	f, err := loc.Load()
	if err != nil {
		t.Fatal(err)
	}
	key := registry.ShortID(denied.Payload.SessionID)
	r := f.Requirements["design_reviewed"]
	if r == nil || r.Sessions[key] == nil {
		t.Fatalf("no state for session %s: %+v", key, f.Requirements)
	}
	e := r.Sessions[key]
	var meta map[string]string
	_ = json.Unmarshal(e.Metadata, &meta)
	if !e.Satisfied || e.SatisfiedBy != "skill" || meta["skill"] != "design-check" || !e.Triggered || e.TriggeredAt < e.SatisfiedAt {
		t.Errorf("entry = %+v, metadata %s", e, e.Metadata)
	}
	dec, _ := os.ReadFile(filepath.Join(project, ".spcstr", "logs", "decisions.json"))
	deny := bytes.Index(dec, []byte(`"decision":"deny","reason":"unsatisfied:design_reviewed"`))
	allow := bytes.Index(dec, []byte(`"hook":"PreToolUse","decision":"allow","reason":"satisfied:design_reviewed"`))
	if deny < 0 || allow < deny {
		t.Errorf("decisions.json (deny at %d, allow at %d):\n%s", deny, allow, dec)
	}

}

func readLines[T any](t *testing.T, path string) []T {
	t.Helper()
	v, err := harness.ReadJSONL[T](path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// captured is one line of the harness's captured.jsonl.
type captured struct {
	Event   string `json:"event"`
	Payload struct {
		SessionID      string          `json:"session_id"`
		ToolName       string          `json:"tool_name"`
		ToolUseID      string          `json:"tool_use_id"`
		ToolInput      json.RawMessage `json:"tool_input"`
		StopHookActive bool            `json:"stop_hook_active"`
	} `json:"payload"`
}

// hookResult is one line of the harness's hook_results.jsonl.
type hookResult struct {
	Event  string `json:"event"`
	Stdout string `json:"stdout"`
}

func eventNames(recs []captured) []string {
	var names []string
	for _, r := range recs {
		names = append(names, strings.TrimSuffix(r.Event+":"+r.Payload.ToolName, ":"))
	}
	return names
}
