package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// TestObservabilityFeedbackLoopGolden plays a whole feedback-loop session
// through the recorder (edit, blocked Stop, reviewer, test lead, tester,
// allowed Stop) and compares the session's observability.jsonl with
// testdata/golden/observability-feedback.jsonl (-update rewrites it):
// hook_enter/hook_exit around every hook, the loop's decisions (blocks,
// context), and a phase_result custom event per phase.
func TestObservabilityFeedbackLoopGolden(t *testing.T) {
	p := newGateProject(t, "feedback:\n  enabled: true\nobservability:\n  verbosity: standard\n")
	p.hook(hookio.SessionStart, map[string]any{"source": "startup"})
	p.hook(hookio.UserPromptSubmit, map[string]any{"prompt": "fix main.go"})
	p.write("main.go", "package main\n")
	p.edit("main.go")
	p.hook(hookio.Stop, map[string]any{"stop_hook_active": false})
	agent := func(id, typ, text string) {
		p.hook(hookio.PostToolUse, map[string]any{"tool_name": "Agent", "tool_use_id": id,
			"tool_input":    map[string]any{"subagent_type": typ, "prompt": "go"},
			"tool_response": map[string]any{"status": "completed", "agentId": "a" + id, "content": []any{map[string]any{"type": "text", "text": text}}}})
	}
	agent("r1", "backend-reviewer", "Looks good.\nREVIEW_APPROVED")
	agent("r2", "test-lead", "Plan written.\nTEST_PLAN_READY")
	agent("r3", "backend-tester", "All green.\nTESTS_PASSED")
	p.hook(hookio.Stop, map[string]any{"stop_hook_active": false})

	data, err := os.ReadFile(filepath.Join(p.root, ".spcstr/sessions/s1/observability.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got := stableRequestIDs(t, data)
	path := filepath.Join("testdata", "golden", "observability-feedback.jsonl")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the recorder's output (-update rewrites it):\n%s", path, firstDiff(want, got))
	}
	// Every hook's events share one request id, which its decision
	// records in decisions.json carry too.
	ids := map[string]bool{}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var e struct {
			RequestID string `json:"request_id"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		ids[e.RequestID] = true
	}
	for _, r := range p.decisions() {
		if !ids[r.RequestID] {
			t.Errorf("decision record %s/%s has request id %s, not in observability.jsonl", r.Hook, r.Reason, r.RequestID)
		}
	}
	if len(ids) != 8 {
		t.Errorf("%d request ids, want one per hook (8)", len(ids))
	}
}

var requestIDField = regexp.MustCompile(`"request_id":"([0-9a-f]{16})"`)

// stableRequestIDs replaces the random request ids by their order of
// appearance (req-1, req-2, …).
func stableRequestIDs(t *testing.T, data []byte) []byte {
	t.Helper()
	seen := map[string]string{}
	return requestIDField.ReplaceAllFunc(data, func(m []byte) []byte {
		id := string(requestIDField.FindSubmatch(m)[1])
		if _, ok := seen[id]; !ok {
			seen[id] = fmt.Sprintf("req-%d", len(seen)+1)
		}
		return []byte(`"request_id":"` + seen[id] + `"`)
	})
}

// observability.yaml wiring: each verbosity keeps its events, enabled:
// false writes no file, and an unknown verbosity is a session error (and
// standard).
func TestObservabilityConfig(t *testing.T) {
	tests := []struct {
		cfg   string
		types string // event types written by one blocked Stop, in order
		input bool   // hook_enter carries the payload
	}{
		{"observability:\n  verbosity: minimal\n", "decision", false},
		{"", "hook_enter,decision,hook_exit", false},
		{"observability:\n  verbosity: verbose\n", "hook_enter,decision,hook_exit", true},
		{"observability:\n  verbosity: loud\n", "hook_enter,decision,error,hook_exit", false},
		{"observability:\n  enabled: false\n", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.cfg, func(t *testing.T) {
			p := newGateProject(t, "feedback:\n  enabled: true\n"+tt.cfg)
			p.write("main.go", "package main\n")
			p.edit("main.go")
			path := filepath.Join(p.root, ".spcstr/sessions/s1/observability.jsonl")
			_ = os.Remove(path)
			p.hook(hookio.Stop, nil)
			data, err := os.ReadFile(path)
			if tt.types == "" {
				if err == nil {
					t.Fatalf("observability off, yet wrote %s", data)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			input := false
			for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
				var e struct {
					EventType string         `json:"event_type"`
					Payload   map[string]any `json:"payload"`
				}
				if err := json.Unmarshal(line, &e); err != nil {
					t.Fatal(err)
				}
				types = append(types, e.EventType)
				if e.EventType == "hook_enter" {
					_, input = e.Payload["input"]
				}
			}
			if got := fmt.Sprint(types); got != fmt.Sprint(strings.Split(tt.types, ",")) || input != tt.input {
				t.Fatalf("events %v (input %v), want %s (input %v)", types, input, tt.types, tt.input)
			}
		})
	}
}
