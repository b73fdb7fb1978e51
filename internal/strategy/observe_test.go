package strategy

import (
	"testing"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/observe"
	"github.com/dylan-gluck/spcstr/state"
)

// customEvents runs one event through the gates with an observability
// request and returns the custom events it kept.
func customEvents(t *testing.T, p *project, gs []gate.Gate, name string, fields map[string]any, v observe.Verbosity) []observe.Event {
	t.Helper()
	in := p.input(name, fields)
	in.Observe = observe.New("s1", name, v, p.now, nil)
	run(t, gs, in)
	var out []observe.Event
	for _, e := range in.Observe.Events() {
		if e.EventType == observe.Custom || e.EventType == observe.Error {
			out = append(out, e)
		}
	}
	return out
}

// The strategies' declared custom events: token-budget's
// threshold_crossed when a level is crossed (once), long-running's
// feature_progress where it reads the feature list; none at minimal.
func TestCustomEvents(t *testing.T) {
	p := newProject(t, true)
	tb := p.gates("strategies:\n  token-budget: {}\n")
	p.sess.Tokens = state.Tokens{ContextUsed: 181_000, ContextWindow: 200_000}
	evs := customEvents(t, p, tb, hookio.PostToolUse, map[string]any{"tool_name": "Read"}, observe.Standard)
	if len(evs) != 1 || evs[0].CustomEventType != observe.ThresholdCrossed || evs[0].StrategyName != "strategy:token-budget" ||
		evs[0].Payload["level"] != "emergency" || evs[0].Payload["used"] != int64(181_000) {
		t.Fatalf("token-budget events = %+v", evs)
	}
	if evs := customEvents(t, p, tb, hookio.PostToolUse, map[string]any{"tool_name": "Read"}, observe.Standard); len(evs) != 0 {
		t.Fatalf("second crossing of the same level emitted %+v", evs)
	}

	lr := p.gates("strategies:\n  long-running: {}\n")
	p.write("feature_list.json", `[{"description":"a","passes":true},{"description":"b","passes":false}]`)
	evs = customEvents(t, p, lr, hookio.SessionStart, map[string]any{"source": "startup"}, observe.Standard)
	if len(evs) != 1 || evs[0].CustomEventType != observe.FeatureProgress || evs[0].Payload["passing"] != 1 || evs[0].Payload["total"] != 2 {
		t.Fatalf("long-running events = %+v", evs)
	}
	if evs := customEvents(t, p, lr, hookio.SessionStart, map[string]any{"source": "startup"}, observe.Minimal); len(evs) != 0 {
		t.Fatalf("minimal kept %+v", evs)
	}
	p.write("feature_list.json", `[{"description":"a","passes":true},{"description":"b","passes":true}]`)
	evs = customEvents(t, p, lr, hookio.PostToolUse, map[string]any{"tool_name": "Edit",
		"tool_input": map[string]any{"file_path": p.layout.Root + "/feature_list.json"}}, observe.Standard)
	if len(evs) != 1 || evs[0].Payload["passing"] != 2 || evs[0].Payload["at"] != hookio.PostToolUse {
		t.Fatalf("feature list write events = %+v", evs)
	}
	if got := CustomEvents(NameCleanState); got != nil {
		t.Fatalf("clean-state declares %v", got)
	}
}
