package observe

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 18, 10, 0, 0, 0, time.UTC)

// fixedClock advances 5 ms per call.
func fixedClock() func() time.Time {
	now := t0
	return func() time.Time { now = now.Add(5 * time.Millisecond); return now }
}

// emitAll makes a request produce one event of each type.
func emitAll(r *Request) {
	r.Enter(map[string]any{"tool_name": "Bash", "agent_id": ""}, json.RawMessage(`{"tool_name":"Bash"}`))
	r.GateTime("feedback", 2*time.Millisecond)
	r.Decision(DecisionInfo{Source: "strategy:token-budget", Decision: "allow", Reason: "warning",
		SystemMessage: "EMERGENCY", Context: strings.Repeat("c", 2000), DurationMS: 1.5, Timestamp: t0},
		map[string]any{"transcript": map[string]any{"context_used": 170000}})
	r.Error("feedback", "panic", "panic: boom", "goroutine 1 [running]:")
	r.Emit("strategy:token-budget", []string{ThresholdCrossed}, ThresholdCrossed,
		map[string]any{"level": "emergency", "used": int64(170000), "detail": map[string]any{"x": 1}, "note": strings.Repeat("n", 300)})
	r.Exit(map[string]any{"decisions": 1})
}

// Each event type at each verbosity: which events are kept, and what
// each carries.
func TestVerbosityTable(t *testing.T) {
	type want struct {
		types       []string
		enterInput  bool // hook_enter carries the whole payload
		exitTiming  bool // hook_exit carries the gates' timing
		decisionDur bool // decision carries the gate's duration and transcript context
		contextCut  bool // decision context cut to 1 KiB
		traceback   bool
		customFull  bool // custom payload keeps non-scalar values and whole texts
	}
	all := []string{HookEnter, Decision, Error, Custom, HookExit}
	cases := []struct {
		v    Verbosity
		want want
	}{
		{Off, want{}},
		{Minimal, want{types: []string{Decision, Error}, contextCut: true}},
		{Standard, want{types: all, contextCut: true}},
		{Verbose, want{types: all, enterInput: true, exitTiming: true, decisionDur: true, traceback: true, customFull: true}},
	}
	for _, c := range cases {
		t.Run(c.v.String(), func(t *testing.T) {
			r := New("s1", "PreToolUse:Bash", c.v, t0, fixedClock())
			emitAll(r)
			evs := r.Events()
			var types []string
			for _, e := range evs {
				types = append(types, e.EventType)
				if e.SessionID != "s1" || e.RequestID != r.ID() || len(r.ID()) != 16 || e.HookName != "PreToolUse:Bash" || e.Timestamp.IsZero() || e.Payload == nil {
					t.Fatalf("common fields: %+v", e)
				}
				switch e.EventType {
				case HookEnter:
					if _, ok := e.Payload["input"]; ok != c.want.enterInput {
						t.Errorf("hook_enter input present = %v", ok)
					}
					if e.Payload["tool_name"] != "Bash" || e.Payload["agent_id"] != nil {
						t.Errorf("hook_enter summary = %v", e.Payload)
					}
				case HookExit:
					if e.DurationMS == nil || *e.DurationMS <= 0 {
						t.Errorf("hook_exit duration = %v", e.DurationMS)
					}
					if _, ok := e.Payload["gates"]; ok != c.want.exitTiming {
						t.Errorf("hook_exit gates timing present = %v", ok)
					}
				case Decision:
					if e.StrategyName != "strategy:token-budget" || e.Decision != "allow" || e.Reason != "warning" || e.Payload["system_message"] != "EMERGENCY" {
						t.Errorf("decision = %+v", e)
					}
					if (e.DurationMS != nil) != c.want.decisionDur || (e.Payload["transcript"] != nil) != c.want.decisionDur {
						t.Errorf("decision detail: duration %v payload %v", e.DurationMS, e.Payload)
					}
					if got := len(e.Payload["context"].(string)) < 2000; got != c.want.contextCut {
						t.Errorf("context cut = %v", got)
					}
				case Error:
					if e.StrategyName != "feedback" || e.ErrorType != "panic" || e.ErrorMessage != "panic: boom" {
						t.Errorf("error = %+v", e)
					}
					if (e.Traceback != "") != c.want.traceback {
						t.Errorf("traceback = %q", e.Traceback)
					}
				case Custom:
					if e.CustomEventType != ThresholdCrossed || e.StrategyName != "strategy:token-budget" || e.Payload["level"] != "emergency" {
						t.Errorf("custom = %+v", e)
					}
					_, nested := e.Payload["detail"]
					if nested != c.want.customFull || (len(e.Payload["note"].(string)) == 300) != c.want.customFull {
						t.Errorf("custom payload = %v", e.Payload)
					}
				}
			}
			if strings.Join(types, ",") != strings.Join(c.want.types, ",") {
				t.Fatalf("kept %v, want %v", types, c.want.types)
			}
		})
	}
}

// An undeclared custom event type is an error event, not a custom one.
func TestEmitUndeclared(t *testing.T) {
	r := New("s1", "Stop", Standard, t0, fixedClock())
	r.Emit("strategy:x", []string{FeatureProgress}, "made_up", nil)
	evs := r.Events()
	if len(evs) != 1 || evs[0].EventType != Error || evs[0].ErrorType != "undeclared_custom_event" {
		t.Fatalf("events = %+v", evs)
	}
}

// A nil request (observability off) accepts every call and keeps nothing.
func TestNilRequest(t *testing.T) {
	var r *Request
	emitAll(r)
	r.Phase("x", t0)
	if r.ID() != "" || r.Events() != nil || r.Verbose() || r.Flush("/nonexistent/x.jsonl") != nil {
		t.Fatal("nil request did something")
	}
}

func TestParseVerbosity(t *testing.T) {
	for in, want := range map[string]Verbosity{"": Standard, "minimal": Minimal, "standard": Standard, "verbose": Verbose} {
		if v, err := ParseVerbosity(in); err != nil || v != want {
			t.Errorf("ParseVerbosity(%q) = %v, %v", in, v, err)
		}
	}
	if v, err := ParseVerbosity("loud"); err == nil || v != Standard {
		t.Errorf("ParseVerbosity(loud) = %v, %v", v, err)
	}
}

// Flush appends every event as one JSON line, in one write, and a second
// request appends after the first.
func TestFlushAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".spcstr", "sessions", "s1", "observability.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		r := New("s1", "Stop", Standard, t0, fixedClock())
		emitAll(r)
		if err := r.Flush(path); err != nil {
			t.Fatal(err)
		}
		if len(r.Events()) != 0 {
			t.Fatal("events kept after flush")
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		for _, k := range []string{"session_id", "request_id", "timestamp", "event_type", "strategy_name", "hook_name", "payload"} {
			if _, ok := e[k]; !ok {
				t.Fatalf("line %d lacks %s: %s", n, k, sc.Bytes())
			}
		}
		n++
	}
	if n != 10 {
		t.Fatalf("%d lines, want 10", n)
	}
}
