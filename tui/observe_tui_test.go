package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
)

// The decisions view (d) shows the allows that warned the user or added
// context, and the selected session's custom observability events.
func TestDecisionsViewShowsWarningsAndCustomEvents(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	f.decisions(t)
	f.decide(t, gate.Record{SessionID: idBusy, Timestamp: ago(20 * time.Second), Source: "strategy:token-budget",
		Hook: "UserPromptSubmit", Decision: "allow", Reason: "warning", SystemMessage: "spcstr token-budget: EMERGENCY, context at 86%."})
	f.decide(t, gate.Record{SessionID: idBusy, Timestamp: ago(15 * time.Second), Source: "strategy:session-reminder",
		Hook: "UserPromptSubmit", Decision: "allow", Reason: "context", Context: "<session-reminder>invoke the skills</session-reminder>"})
	path, err := f.layout.ObservabilityPath(idBusy)
	if err != nil {
		t.Fatal(err)
	}
	line := `{"session_id":"` + idBusy + `","request_id":"0123456789abcdef","timestamp":"` + ago(20*time.Second).UTC().Format(time.RFC3339Nano) +
		`","event_type":"custom","strategy_name":"strategy:token-budget","hook_name":"UserPromptSubmit","custom_event_type":"threshold_crossed","payload":{"level":"emergency","used":171000}}` + "\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"torn`+"\n"+line), 0o644); err != nil {
		t.Fatal(err)
	}
	m := start(t, f, 160, 40)
	m = send(t, m, press("3", "d")...)
	fr := plain(m)
	for _, want := range []string{
		"strategy:token-budget warn UserPromptSubmit: spcstr token-budget: EMERGENCY",
		"strategy:session-reminder allow UserPromptSubmit: context: <session-reminder>",
		"strategy:token-budget threshold_crossed UserPromptSubmit: level=emergency used=171000",
		"requirements:pre_commit_review deny PreToolUse",
	} {
		if !strings.Contains(fr, want) {
			t.Errorf("decisions view lacks %q:\n%s", want, fr)
		}
	}
	// All events again: the custom events belong to the decisions view.
	m = send(t, m, press("d")...)
	if fr = plain(m); strings.Contains(fr, "threshold_crossed") {
		t.Errorf("custom events shown outside the decisions view:\n%s", fr)
	}
}

// TestEnterOnACustomEvent: enter on a custom event in the decisions view
// shows its observability line, not "no longer in the log".
func TestEnterOnACustomEvent(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	path, err := f.layout.ObservabilityPath(idBusy)
	if err != nil {
		t.Fatal(err)
	}
	line := `{"session_id":"` + idBusy + `","request_id":"0123456789abcdef","timestamp":"` + ago(time.Second/2).UTC().Format(time.RFC3339Nano) +
		`","event_type":"custom","strategy_name":"strategy:token-budget","hook_name":"UserPromptSubmit","custom_event_type":"threshold_crossed","payload":{"level":"emergency"}}` + "\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	m := start(t, f, 120, 40)
	m = send(t, m, press("3", "d", "G", "enter")...)
	p := plain(m)
	if !m.showEntry || strings.Contains(p, "no longer in the log") || !strings.Contains(p, `"custom_event_type": "threshold_crossed"`) {
		t.Fatalf("enter on the custom event:\n%s", p)
	}
}
