package observe

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// The generated encoder writes what encoding/json writes, byte for byte
// (payload keys sorted), and a payload
// value JSON cannot hold still gives a line.
func TestEventEncodeMatchesEncodingJSON(t *testing.T) {
	d := 1.5
	at := time.Date(2026, 11, 24, 9, 0, 0, 5, time.UTC)
	events := []Event{
		{SessionID: "s", RequestID: "r", Timestamp: at, EventType: HookExit, HookName: "PreToolUse:Bash", DurationMS: &d,
			Payload: map[string]any{"answered": true, "n": 3, "big": int64(1) << 60, "none": nil, "no": false, "text": "<a> & \"b\" \u2028 \x01 é",
				"nested": map[string]any{"x": []any{1.5, "y"}}, "f": 0.000001, "list": []string{"a"}}},
		{EventType: Decision, StrategyName: "feedback", Decision: "deny", Reason: "r", Message: "m", DryRun: true, Payload: nil},
		{EventType: Error, ErrorType: "t", ErrorMessage: "e", Traceback: "tb", CustomEventType: "c", Payload: map[string]any{}},
	}
	r := &Request{events: append([]Event(nil), events...)}
	lines := splitLines(r.Encode())
	if len(lines) != len(events) {
		t.Fatalf("%d lines for %d events", len(lines), len(events))
	}
	for i, e := range events {
		want, _ := json.Marshal(&e)
		if !bytes.Equal(lines[i], want) {
			t.Errorf("event %d:\n got %s\nwant %s", i, lines[i], want)
		}
	}
	bad := &Request{events: []Event{{EventType: Custom, Payload: map[string]any{"nan": math.NaN()}}}}
	if out := splitLines(bad.Encode()); len(out) != 1 {
		t.Fatalf("an unencodable payload lost its event: %q", out)
	}
}

func splitLines(b []byte) [][]byte {
	if len(b) == 0 {
		return nil
	}
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

// hook_enter is the first event whenever it is recorded, even when the
// recorder builds it last.
func TestEnterComesFirst(t *testing.T) {
	start := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	r := New("s", "PreToolUse:Bash", Standard, start, func() time.Time { return start.Add(time.Millisecond) })
	r.Error("", "spcstr", "boom", "")
	r.Enter(map[string]any{"tool_name": "Bash"}, nil)
	r.Exit(map[string]any{"decisions": 0})
	var types []string
	for _, l := range splitLines(r.Encode()) {
		var e Event
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatal(err)
		}
		types = append(types, e.EventType)
	}
	if strings.Join(types, ",") != "hook_enter,error,hook_exit" {
		t.Fatalf("events in order %v", types)
	}
}
