package logs

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// refHead is ReadHead by encoding/json: the reference the hand-read layout
// and the member readers are both held to.
type refHead struct {
	Timestamp time.Time       `json:"timestamp"`
	SessionID string          `json:"session_id"`
	Event     string          `json:"event"`
	Input     json.RawMessage `json:"input"`
	Outcome   *Outcome        `json:"outcome"`
	Truncated map[string]int  `json:"truncated"`
	Decision  string          `json:"decision"`
}

// headCorpus is entries of every shape a log may hold: Entry.Encode's own
// (the layout read by hand), other encoders' member orders and spacing,
// decision records, and damaged or hostile ones.
func headCorpus(t testing.TB) [][]byte {
	at := time.Date(2026, 11, 29, 3, 0, 0, 123456789, time.UTC)
	enc := func(e Entry) []byte {
		b, err := e.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	out := [][]byte{
		enc(Entry{Timestamp: at, SessionID: "s1", Event: "PreToolUse", Input: json.RawMessage(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`), Outcome: &Outcome{DurationMS: 1.25}}),
		enc(Entry{Timestamp: at, SessionID: "s1", Event: "Stop", Input: json.RawMessage(`{}`), Outcome: &Outcome{DurationMS: 3, Decisions: 2}}),
		enc(Entry{Timestamp: at, SessionID: "s1", Event: "Stop", Input: json.RawMessage(`{"a":1}`), Outcome: &Outcome{DurationMS: 0.001, Answer: json.RawMessage(`{"decision":"block","reason":"no"}`)}}),
		enc(Entry{Timestamp: at, SessionID: "s1", Event: "PostToolUse", Input: json.RawMessage(`{"x":"y"}`), Outcome: &Outcome{DurationMS: 2, Error: "state: boom"}}),
		enc(Entry{Timestamp: at, SessionID: "s1", Event: "PostToolUse", Input: json.RawMessage(`{"tool_response":{"stdout":"…"}}`), Outcome: &Outcome{DurationMS: 2}, Truncated: Sizes{"tool_response.stdout": 900000}}),
		enc(Entry{Timestamp: at, SessionID: "s1", Event: "PostToolUse", Input: json.RawMessage(`{"x":1}`), Outcome: &Outcome{DurationMS: 2, Decisions: 1, Answer: json.RawMessage(`{"continue":true}`)}, Truncated: Sizes{"a": 1, "b": 2}}),
		enc(Entry{Timestamp: at, SessionID: "s1", Event: "UserPromptSubmit", Input: json.RawMessage(`"a rejected payload"`)}),
		enc(Entry{Timestamp: at, SessionID: "s1", Event: "Notification", Input: json.RawMessage(`{"message":"hi"}`)}),
		// A payload that holds spcstr's own member names.
		enc(Entry{Timestamp: at, SessionID: "s1", Event: "PreToolUse", Input: json.RawMessage(`{"outcome":{"duration_ms":9},"truncated":{"x":1}}`)}),
		enc(Entry{Timestamp: at, SessionID: "s1", Event: "PreToolUse", Input: json.RawMessage(`{"k":"\",\"outcome\":{\"duration_ms\":7}}"}`), Outcome: &Outcome{DurationMS: 4}}),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"Stop","input":{},"outcome":{"duration_ms":1e-3}}`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"Stop","input":{},"outcome":{"duration_ms":01}}`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"Stop","input":{},"outcome":{"duration_ms":1,"decisions":007}}`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"Stop","input":{},"outcome":{"duration_ms":1},"truncated":{}}`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"Stop","input":{},"outcome":{"duration_ms":1},"truncated":{"a":"x"}}`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"Stop","input":{},"outcome":null}`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"Stop","input":{},"outcome":5}`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"Stop","input":{},"outcome":{"duration_ms":1}} `),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"Stop","input":{},"outcome":{"duration_ms":1}}}`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s\u0031","event":"Sto\"p","input":{},"outcome":{"duration_ms":1}}`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00+02:00","session_id":"s1","event":"Stop","input":{"a":[1,2,{"b":null}]},"outcome":{"duration_ms":1}}`),
		// Other encoders: other orders, spacing, case.
		[]byte(`{ "session_id" : "s2", "event":"Stop", "timestamp":"2026-11-29T03:00:00Z", "input" : { "a" : 1 } }`),
		[]byte(`{"outcome":{"error":"e","duration_ms":2},"input":{"a":1},"Session_ID":"s3","TIMESTAMP":"2026-11-29T03:00:00Z"}`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","session_id":"s4","event":"Stop"}`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"Stop","input":{"a":{}},"truncated":{"a":1}}`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"Stop","input":{"a":{"b":1}}}`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"Stop","input":{"a":1} }`),
		// Decision records (decisions.json).
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","request_id":"r","source":"requirements","hook":"PreToolUse","decision":"deny","reason":"plan","duration_ms":0.2}`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","hook":"Stop","decision":"allow","dry_run":true}`),
		// Wrong types, damage, not objects.
		[]byte(`{"timestamp":5,"session_id":["x"],"event":{"a":1},"input":{}}`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"Stop","input":{"a":`),
		[]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"Stop","input":{},"outcome":{"duration_ms":1}`),
		[]byte(`[1,2]`),
		[]byte(`"text"`),
		[]byte(`null`),
		[]byte(``),
		[]byte(`{}`),
	}
	return out
}

func TestReadHeadMatchesEncodingJSON(t *testing.T) {
	for _, raw := range headCorpus(t) {
		checkHead(t, raw)
	}
}

// FuzzReadHead holds ReadHead to encoding/json on any input (go test
// -fuzz=FuzzReadHead ./logs); its seeds run with the unit tests.
func FuzzReadHead(f *testing.F) {
	for _, raw := range headCorpus(f) {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkHead(t, raw) })
}

// checkHead compares ReadHead with encoding/json on one entry that is
// valid JSON. (The hand-read layout does not scan the payload, so an entry
// broken inside its payload may still read; Payload then fails.)
func checkHead(t *testing.T, raw []byte) {
	t.Helper()
	h, ok := ReadHead(raw)
	if !json.Valid(raw) {
		if ok && json.Valid(h.Input) {
			t.Errorf("ReadHead(%s) read an invalid entry whose payload is valid", raw)
		}
		return
	}
	var ref refHead
	err := json.Unmarshal(raw, &ref)
	var typeErr *json.UnmarshalTypeError
	isObject := bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{"))
	if ok != isObject {
		t.Fatalf("ReadHead(%s): ok = %v, want %v", raw, ok, isObject)
	}
	if !ok || err != nil && !errors.As(err, &typeErr) {
		return // not an object, or a value encoding/json gives up on (a bad time)
	}
	got := refHead{Timestamp: h.Timestamp, SessionID: h.SessionID, Event: h.Event, Input: h.Input, Outcome: h.Outcome, Decision: h.Decision}
	if !h.Timestamp.Equal(ref.Timestamp) || got.SessionID != ref.SessionID || got.Event != ref.Event ||
		!bytes.Equal(got.Input, ref.Input) || got.Decision != ref.Decision || h.Truncated != (len(ref.Truncated) > 0) ||
		!sameOutcome(got.Outcome, ref.Outcome) || !bytes.Equal(h.Raw, raw) {
		gb, _ := json.Marshal(got)
		rb, _ := json.Marshal(ref)
		t.Errorf("ReadHead(%s)\n got %s truncated=%v\nwant %s", raw, gb, h.Truncated, rb)
	}
}

func sameOutcome(a, b *Outcome) bool {
	if a == nil || b == nil {
		return a == b
	}
	return bytes.Equal(a.Answer, b.Answer) && a.DurationMS == b.DurationMS && a.Decisions == b.Decisions && a.Error == b.Error
}

// TestReadHeadLayoutPath checks that Entry.Encode's own lines take the
// hand-read path (the one the export's speed depends on).
func TestReadHeadLayoutPath(t *testing.T) {
	for i, raw := range headCorpus(t)[:10] {
		if i == 6 || i == 8 {
			continue // a rejected payload is not an object; a payload holding spcstr's member names is left to the member readers
		}
		if _, ok := layoutHead(raw); !ok {
			t.Errorf("layoutHead(%s) fell back to the member readers", raw)
		}
	}
}

func TestHeadPayload(t *testing.T) {
	h, ok := ReadHead([]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"PreToolUse","input":{"tool_name":"Bash"},"outcome":{"duration_ms":1}}`))
	if !ok {
		t.Fatal("not read")
	}
	var p struct {
		ToolName string `json:"tool_name"`
	}
	if err := h.Payload(&p); err != nil || p.ToolName != "Bash" {
		t.Errorf("Payload: %+v %v", p, err)
	}
	// A payload broken inside, in spcstr's layout: the head reads, the
	// payload does not.
	h, ok = ReadHead([]byte(`{"timestamp":"2026-11-29T03:00:00Z","session_id":"s1","event":"Stop","input":{"a":},"outcome":{"duration_ms":1}}`))
	if ok && h.Payload(&p) == nil {
		t.Error("a broken payload decoded")
	}
}
