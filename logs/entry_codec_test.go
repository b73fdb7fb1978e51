package logs

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// The generated encoder writes what encoding/json writes, byte for byte
// (keys of maps sorted), on one line; only the raw members (the payload,
// the answer) are written as they came, where encoding/json would escape
// their <, > and & (the reference below turns that off).
func TestEntryEncodeMatchesEncodingJSON(t *testing.T) {
	at := time.Date(2026, 11, 24, 9, 0, 0, 5, time.UTC)
	big := string(bytes.Repeat([]byte("x"), 100))
	input, truncated := CapPayload([]byte("{\"tool_input\": {\"command\": \"echo <hi> & \\u2028\"},\n \"big\": \""+big+"\", \"also\": \""+big+"\", \"z\": \""+big+"\"}"), 50)
	if len(truncated) != 3 {
		t.Fatalf("want three fields cut, got %v", truncated)
	}
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
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(e); err != nil {
				t.Fatal(err)
			}
			want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
			if !bytes.Equal(got, want) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}
