package logs

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// The generated encoder writes what encoding/json writes, on one line.
func TestEntryEncodeMatchesEncodingJSON(t *testing.T) {
	at := time.Date(2026, 11, 24, 9, 0, 0, 5, time.UTC)
	input, truncated := CapPayload([]byte("{\"tool_input\": {\"command\": \"echo <hi> & \\u2028\"},\n \"big\": \""+string(bytes.Repeat([]byte("x"), 100))+"\"}"), 50)
	for name, e := range map[string]*Entry{
		"full": {Timestamp: at, SessionID: "s", Event: "PreToolUse", Input: input, Truncated: truncated,
			Outcome: &Outcome{Answer: json.RawMessage(`{"decision":"block","reason":"r"}`), DurationMS: 1.234, Decisions: 2, Error: "e\n\"x\""}},
		"bare": {Timestamp: at, Event: "Stop", Input: json.RawMessage(`{}`), Outcome: &Outcome{}},
		"none": {},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := e.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if bytes.ContainsAny(got, "\n\r") {
				t.Fatalf("not one line: %s", got)
			}
			want, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("not JSON: %v: %s", err, got)
			}
			_ = json.Unmarshal(want, &w)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}
