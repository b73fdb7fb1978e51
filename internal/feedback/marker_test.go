package feedback

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// realPayloads loads real Agent/Task payloads: PostToolUse responses from
// the captured payload corpus ($SPCSTR_SHARED/corpus) (Claude Code 1.0 to 2.1, foreground and background) and
// the harness's captures (2.1.330, including a reviewer's REVIEW_APPROVED).
func realPayloads(t *testing.T) map[string]*hookio.Event {
	t.Helper()
	f, err := os.Open("testdata/agent_payloads.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]*hookio.Event{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			Name    string          `json:"name"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		ev, err := hookio.Decode(rec.Payload)
		if err != nil {
			t.Fatalf("%s: %v", rec.Name, err)
		}
		out[rec.Name] = ev
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMarkerInRealAgentResponses(t *testing.T) {
	evs := realPayloads(t)
	tests := []struct {
		name       string
		background bool
		marker     string // "" = none
	}{
		{"task-1.0-no-status", false, ""},
		{"task-agentid-no-type", false, ""},
		{"agent-async-launched", true, ""},
		{"agent-completed-typed", false, ""},
		{"harness-agent-reviewer", false, MarkerReviewApproved},
		{"harness-agent-general", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := evs[tt.name]
			if ev == nil {
				t.Fatalf("payload %s missing from testdata", tt.name)
			}
			resp := ev.Response()
			if resp.Background() != tt.background {
				t.Fatalf("Background() = %v, want %v", resp.Background(), tt.background)
			}
			text := resp.Text()
			if !tt.background && text == "" {
				t.Fatal("no text in a completed agent's response")
			}
			m, ok := ParseMarker(text)
			if tt.marker == "" && ok {
				t.Fatalf("found marker %s in %q", m.Name, text)
			}
			if tt.marker != "" && (!ok || m.Name != tt.marker) {
				t.Fatalf("marker = %v %v, want %s", m, ok, tt.marker)
			}
		})
	}
	// The echoed prompt ("answer REVIEW_APPROVED or REVIEW_REJECTED") is
	// not part of the text a marker is read from.
	if got := evs["harness-agent-reviewer"].Response().Text(); got == "" || strings.Contains(got, "REVIEW_REJECTED") {
		t.Fatalf("reviewer text includes the prompt: %q", got)
	}
	// Background results arrive with SubagentStop's last_assistant_message.
	ss := evs["harness-subagentstop-reviewer"]
	if m, ok := ParseMarker(ss.LastAssistantMessage); !ok || m.Name != MarkerReviewApproved || !m.Pass || m.Phase != PhaseReview {
		t.Fatalf("SubagentStop marker = %+v %v", m, ok)
	}
}

// withText returns a copy of a real payload whose last content block says
// text, so that markers are read through the real response shape.
func withText(t *testing.T, ev *hookio.Event, text string) *hookio.Event {
	t.Helper()
	var resp map[string]any
	if err := json.Unmarshal(ev.ToolResponse, &resp); err != nil {
		t.Fatal(err)
	}
	blocks, _ := resp["content"].([]any)
	blocks = append(blocks[:len(blocks):len(blocks)], map[string]any{"type": "text", "text": text})
	resp["content"] = blocks
	raw, _ := json.Marshal(resp)
	cp := *ev
	cp.ToolResponse = raw
	return &cp
}

func TestParseMarkerAndIssues(t *testing.T) {
	evs := realPayloads(t)
	tests := []struct {
		name, text string
		marker     string
		pass       bool
		issues     []string
	}{
		{"seed reviewer rejected", "## Review Result\n\nREVIEW_REJECTED\n\n### Issues (if rejected)\n\n- missing error check in Load\n- [specific issue 2]\n* race on counter\n", MarkerReviewRejected, false,
			[]string{"missing error check in Load", "race on counter"}},
		{"seed tester failed", "## Test Result\n\nTESTS_FAILED\n\n### Failures (if failed)\n\n1. TestLoad: want 3, got 2\n2. TestSave: timeout\n", MarkerTestsFailed, false,
			[]string{"TestLoad: want 3, got 2", "TestSave: timeout"}},
		{"test plan ready", "## Test Planning Result\n\nTEST_PLAN_READY", MarkerTestPlanReady, true, nil},
		{"plan blocked", "TEST_PLAN_BLOCKED: no fixtures", MarkerTestPlanBlocked, false, nil},
		{"quoting the protocol, last wins", "I must answer REVIEW_APPROVED or REVIEW_REJECTED.\n\nREVIEW_APPROVED", MarkerReviewApproved, true, nil},
		{"marker inside a word is not one", "XREVIEW_APPROVEDX and TESTS_PASSED_LATER", "", false, nil},
		{"lower case is not a marker", "review_approved", "", false, nil},
		{"none", "All good, I think.", "", false, nil},
	}
	for _, tt := range tests {
		for _, shape := range []string{"task-1.0-no-status", "agent-completed-typed", "harness-agent-general"} {
			t.Run(tt.name+"/"+shape, func(t *testing.T) {
				text := withText(t, evs[shape], tt.text).Response().Text()
				m, ok := ParseMarker(text)
				if ok != (tt.marker != "") || m.Name != tt.marker || (ok && m.Pass != tt.pass) {
					t.Fatalf("ParseMarker = %+v %v, want %s pass=%v", m, ok, tt.marker, tt.pass)
				}
				if got := Issues(text); !reflect.DeepEqual(got, tt.issues) {
					t.Fatalf("Issues = %q, want %q", got, tt.issues)
				}
			})
		}
	}
}
