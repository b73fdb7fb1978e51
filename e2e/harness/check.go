package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Record is one line of captured.jsonl.
type Record struct {
	TS         float64           `json:"ts"`
	Event      string            `json:"event"`
	PID        int               `json:"pid"`
	Cwd        string            `json:"cwd"`
	ProjectDir string            `json:"CLAUDE_PROJECT_DIR"`
	Env        map[string]string `json:"env"`
	Payload    json.RawMessage   `json:"payload"`
	PayloadRaw *string           `json:"payload_raw"`
}

// ReadCaptured reads a run's captured.jsonl.
func ReadCaptured(outDir string) ([]Record, error) {
	return ReadJSONL[Record](filepath.Join(outDir, "captured.jsonl"))
}

// Check compares a run with its scenario's expect block and with what
// every run must meet (exit code 0, one session, SessionEnd last, payloads
// with session_id, transcript_path and cwd, CLAUDE_PROJECT_DIR the
// project). It returns one line per failed check.
func Check(scenarioPath string, r *Result) []string {
	sc, err := LoadScenario(scenarioPath, r.Project, r.OutDir)
	if err != nil {
		return []string{err.Error()}
	}
	var fails []string
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	if r.ExitCode != 0 {
		fail("claude exit code %d", r.ExitCode)
	}
	recs, err := ReadCaptured(r.OutDir)
	if err != nil {
		return append(fails, err.Error())
	}
	if len(recs) == 0 {
		return append(fails, "no hook payloads captured")
	}
	type payload struct {
		HookEventName  string `json:"hook_event_name"`
		SessionID      string `json:"session_id"`
		ToolName       string `json:"tool_name"`
		StopHookActive *bool  `json:"stop_hook_active"`
	}
	sids := map[string]bool{}
	var labels []string
	var stops []bool
	for i, rec := range recs {
		var p payload
		var fields map[string]json.RawMessage
		if rec.PayloadRaw != nil || json.Unmarshal(rec.Payload, &p) != nil || json.Unmarshal(rec.Payload, &fields) != nil {
			fail("record %d: payload is not a JSON object", i)
			labels = append(labels, rec.Event)
			continue
		}
		if p.HookEventName != rec.Event {
			fail("record %d: hook_event_name %q, registered for %q", i, p.HookEventName, rec.Event)
		}
		for _, k := range []string{"session_id", "transcript_path", "cwd"} {
			if _, ok := fields[k]; !ok {
				fail("record %d (%s): no %s", i, rec.Event, k)
			}
		}
		sids[p.SessionID] = true
		if rec.ProjectDir != r.Project {
			fail("record %d: CLAUDE_PROJECT_DIR=%q", i, rec.ProjectDir)
		}
		label := rec.Event
		if _, ok := fields["tool_name"]; ok {
			label += ":" + p.ToolName
		}
		labels = append(labels, label)
		if rec.Event == "Stop" && p.StopHookActive != nil {
			stops = append(stops, *p.StopHookActive)
		}
	}
	want := 1
	prev := r.SessionID
	for _, id := range append([]string{r.ThenSessionID}, r.MoreSessionIDs...) {
		if id != "" && id != prev {
			want++ // a fork: a session of its own
		}
		prev = id
	}
	if len(sids) != want {
		fail("%d session ids, want %d", len(sids), want)
	}
	if last := recs[len(recs)-1].Event; last != "SessionEnd" {
		fail("last event is %s, not SessionEnd", last)
	}
	matches := func(label, want string) bool {
		return label == want || strings.SplitN(label, ":", 2)[0] == want
	}
	j := 0
	for _, l := range labels {
		if j < len(sc.Expect.EventsInOrder) && matches(l, sc.Expect.EventsInOrder[j]) {
			j++
		}
	}
	if j < len(sc.Expect.EventsInOrder) {
		fail("events_in_order: stuck at %q (got %s)", sc.Expect.EventsInOrder[j], strings.Join(labels, " "))
	}
	for want, n := range sc.Expect.Counts {
		got := 0
		for _, l := range labels {
			if matches(l, want) {
				got++
			}
		}
		if got != n {
			fail("count %s: want %d, got %d", want, n, got)
		}
	}
	for _, c := range sc.Expect.Contains {
		found := false
		for _, rec := range recs {
			if rec.Event == c[0] && strings.Contains(indented(rec.Payload), c[1]) {
				found = true
				break
			}
		}
		if !found {
			fail("no %s payload contains %q", c[0], c[1])
		}
	}
	if sc.Expect.StopHookActive != nil && fmt.Sprint(stops) != fmt.Sprint(sc.Expect.StopHookActive) {
		fail("Stop stop_hook_active: want %v, got %v", sc.Expect.StopHookActive, stops)
	}
	for rel, want := range sc.Expect.Files {
		data, err := os.ReadFile(filepath.Join(r.Project, filepath.FromSlash(rel)))
		switch {
		case want == nil && err == nil:
			fail("file %s exists", rel)
		case want != nil && err != nil:
			fail("file %s: %v", rel, err)
		case want != nil && string(data) != *want:
			fail("file %s: want %q, got %q", rel, *want, data)
		}
	}
	return fails
}

// indented is a payload as JSON text with ": " and ", " separators, so
// that an expectation can say "\"agent_type\": \"reviewer\"".
func indented(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return string(raw)
	}
	// encoding/json writes no spaces; add them after separators outside
	// strings.
	var out strings.Builder
	inStr, esc := false, false
	for _, c := range strings.TrimSpace(b.String()) {
		out.WriteRune(c)
		switch {
		case esc:
			esc = false
		case c == '\\' && inStr:
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && (c == ':' || c == ','):
			out.WriteByte(' ')
		}
	}
	return out.String()
}
