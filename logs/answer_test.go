package logs_test

import (
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/logs"
)

func TestReadAnswerJoinsItsEvent(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	entry, err := (&logs.Entry{Timestamp: at, SessionID: "s1", Event: "PreToolUse",
		Input:   []byte(`{"session_id":"s1","hook_event_name":"PreToolUse","tool_use_id":"t1"}`),
		Outcome: &logs.Outcome{DurationMS: 1}}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	h, ok := logs.ReadHead(entry)
	if !ok {
		t.Fatal("event entry not read")
	}
	for _, tc := range []struct {
		name, line string
		ok, joins  bool
	}{
		{"same event", `{"timestamp":"2026-01-02T03:04:05.000006Z","session_id":"s1","event":"PreToolUse","tool_use_id":"t1","answer":{"continue":false},"decisions":2,"duration_ms":3}`, true, true},
		{"another call", `{"timestamp":"2026-01-02T03:04:05.000006Z","session_id":"s1","event":"PreToolUse","tool_use_id":"t2","duration_ms":3}`, true, false},
		{"another time", `{"timestamp":"2026-01-02T03:04:05.000007Z","session_id":"s1","event":"PreToolUse","tool_use_id":"t1","duration_ms":3}`, true, false},
		{"no session", `{"timestamp":"2026-01-02T03:04:05.000006Z","event":"PreToolUse"}`, false, false},
		{"not an object", `[1]`, false, false},
		{"decisions of another type", `{"timestamp":"2026-01-02T03:04:05.000006Z","session_id":"s1","event":"PreToolUse","decisions":"x"}`, false, false},
	} {
		a, ok := logs.ReadAnswer([]byte(tc.line))
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.name, ok, tc.ok)
			continue
		}
		if got := ok && a.Key() == logs.EventKey(h.SessionID, h.Event, "t1", h.Timestamp); got != tc.joins {
			t.Errorf("%s: joins %v, want %v (%+v vs %+v)", tc.name, got, tc.joins, a.Key(), logs.EventKey(h.SessionID, h.Event, "t1", h.Timestamp))
		}
		if tc.joins && (string(a.Answer) != `{"continue":false}` || a.Decisions != 2 || a.DurationMS != 3) {
			t.Errorf("%s: read %+v", tc.name, a)
		}
	}
}
