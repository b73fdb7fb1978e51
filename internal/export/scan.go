package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// logFile is one file under .spcstr/logs that the export reads.
type logFile struct {
	path      string
	decisions bool // decisions.json (or a rotated one); otherwise an event log
	answers   bool // answers.json (or a rotated one)
}

// logFiles lists the logs to read: every event log and decisions log,
// rotated segments (oldest first) before the live one. The rejected and
// repairs logs hold no session's entries.
func logFiles(l state.Layout) ([]logFile, error) {
	found, err := logs.List(l.LogsDir(), func(f logs.File) bool { return f.Kind.Session() || f.Kind == logs.Answers })
	if err != nil {
		return nil, err
	}
	out := make([]logFile, len(found))
	for i, f := range found {
		out[i] = logFile{path: f.Path, decisions: f.Kind == logs.Decisions, answers: f.Kind == logs.Answers}
	}
	return out, nil
}

// tally is what the export gathers from one session's log entries.
type tally struct {
	events     int
	byType     map[string]int
	first      time.Time
	last       time.Time
	hookMS     []float64
	answers    int
	truncated  int
	hookErrors int
	// parents maps the tool_use_id of an Agent/Task call made inside a
	// subagent to that subagent's agent_id.
	parents   map[string]string
	decisions []Decision
}

func newTally() *tally {
	return &tally{byType: map[string]int{}, parents: map[string]string{}}
}

func (t *tally) add(o *tally) {
	t.events += o.events
	for k, v := range o.byType {
		t.byType[k] += v
	}
	if !o.first.IsZero() && (t.first.IsZero() || o.first.Before(t.first)) {
		t.first = o.first
	}
	if o.last.After(t.last) {
		t.last = o.last
	}
	t.hookMS = append(t.hookMS, o.hookMS...)
	t.answers += o.answers
	t.truncated += o.truncated
	t.hookErrors += o.hookErrors
	for k, v := range o.parents {
		t.parents[k] = v
	}
	t.decisions = append(t.decisions, o.decisions...)
}

// scanLogs reads every log of the project, in parallel across files, and
// returns what belongs to session id.
func scanLogs(l state.Layout, id string) (*tally, error) {
	files, err := logFiles(l)
	if err != nil {
		return nil, err
	}
	results := make([]*tally, len(files))
	errs := make([]error, len(files))
	workers := min(runtime.GOMAXPROCS(0), len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			sc := newScanner(id)
			for i := range next {
				results[i], errs[i] = sc.file(files[i])
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	total := newTally()
	for i, r := range results {
		if errs[i] != nil {
			return nil, errs[i]
		}
		total.add(r)
	}
	sort.SliceStable(total.decisions, func(i, j int) bool {
		return total.decisions[i].Timestamp.Before(total.decisions[j].Timestamp)
	})
	return total, nil
}

// scanner filters one session's entries out of log files. One per
// goroutine: it reuses its buffers.
type scanner struct {
	id      string
	idKey   []byte // "session_id":"<id>"
	scratch []byte
	t       *tally
	decs    bool
	answers bool
}

func newScanner(id string) *scanner {
	return &scanner{id: id, idKey: []byte(`"session_id":"` + id + `"`)}
}

// file reads one log with logs.Stream.
func (sc *scanner) file(f logFile) (*tally, error) {
	sc.t, sc.decs, sc.answers = newTally(), f.decisions, f.answers
	err := logs.Stream(f.path, func() { sc.t = newTally() }, func(raw []byte) error {
		sc.entry(raw)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.path, err)
	}
	return sc.t, nil
}

// mine is the cheap test run on every entry before any decoding: spcstr
// writes session_id among the first fields, so its value is compared in
// place. An entry of another layout is kept when it mentions the id at all,
// and its decoded session_id decides.
func (sc *scanner) mine(raw []byte) bool {
	const key = `"session_id":"`
	head := raw[:min(len(raw), 256)]
	if i := bytes.Index(head, []byte(key)); i >= 0 {
		rest := raw[i+len(key):]
		return len(rest) > len(sc.id) && string(rest[:len(sc.id)]) == sc.id && rest[len(sc.id)] == '"'
	}
	return bytes.Contains(raw, []byte(sc.id))
}

func (sc *scanner) entry(raw []byte) {
	if !sc.mine(raw) {
		return
	}
	switch {
	case sc.decs:
		sc.decision(raw)
	case sc.answers:
		sc.answer(raw)
	default:
		sc.event(raw)
	}
}

// answer takes one of the session's answers.json records: the answer the
// hook printed, since it logs an event before its gates decide.
func (sc *scanner) answer(raw []byte) {
	var a logs.Answer
	if json.Unmarshal(raw, &a) != nil || a.SessionID != sc.id {
		return
	}
	if len(a.Answer) > 0 && string(a.Answer) != "null" {
		sc.t.answers++
	}
}

func (sc *scanner) decision(raw []byte) {
	var r gate.Record
	if json.Unmarshal(raw, &r) != nil || r.SessionID != sc.id {
		return
	}
	sc.t.decisions = append(sc.t.decisions, Decision{
		Timestamp: r.Timestamp, RequestID: r.RequestID, Source: r.Source, Hook: r.Hook,
		Decision: r.Decision, Reason: r.Reason, Message: r.Message,
		SystemMessage: r.SystemMessage, Context: r.Context,
		DurationMS: r.DurationMS, DryRun: r.DryRun, Error: r.Error,
	})
}

// outcome is the part of logs.Outcome the summary uses.
type outcome struct {
	Answer     json.RawMessage `json:"answer"`
	DurationMS float64         `json:"duration_ms"`
	Error      string          `json:"error"`
}

// envelopeTail is what follows the payload in an entry.
type envelopeTail struct {
	Outcome   *outcome       `json:"outcome"`
	Truncated map[string]int `json:"truncated"`
	// cut is set instead of Truncated when the map was only seen.
	cut bool
}

// entryLite is a log entry decoded whole (the slow path).
type entryLite struct {
	Timestamp time.Time       `json:"timestamp"`
	SessionID string          `json:"session_id"`
	Event     string          `json:"event"`
	Input     json.RawMessage `json:"input"`
	envelopeTail
}

// event takes one of the session's event log entries. spcstr writes
// {"timestamp":…,"session_id":…,"event":…,"input":{payload},"outcome":{…}}
// (plus "truncated":{…} when a field was cut): the fields before the
// payload are read in place and the outcome is found near the end of the
// line, so the payload (most of the bytes) is never decoded. Anything else
// is decoded whole.
func (sc *scanner) event(raw []byte) {
	var e entryLite
	ts, name, payload, tail, ok := sc.envelope(raw)
	if ok {
		e.Timestamp, e.Event = parseTime(ts), name
		ok = !e.Timestamp.IsZero() && sc.tail(tail, &e.envelopeTail)
	}
	if !ok {
		e = entryLite{}
		if json.Unmarshal(raw, &e) != nil || e.SessionID != sc.id {
			return
		}
		payload = e.Input
	}
	t := sc.t
	t.events++
	t.byType[e.Event]++
	if t.first.IsZero() || e.Timestamp.Before(t.first) {
		t.first = e.Timestamp
	}
	if e.Timestamp.After(t.last) {
		t.last = e.Timestamp
	}
	if o := e.Outcome; o != nil {
		t.hookMS = append(t.hookMS, o.DurationMS)
		if len(o.Answer) > 0 && string(o.Answer) != "null" {
			t.answers++
		}
		if o.Error != "" {
			t.hookErrors++
		}
	}
	if len(e.Truncated) > 0 || e.cut {
		t.truncated++
	}
	if e.Event == hookio.PreToolUse && bytes.Contains(payload, []byte(`"agent_id"`)) {
		sc.agentCall(payload)
	}
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// truncatedKey starts the truncated field that may follow the outcome.
const truncatedKey = `,"truncated":{`

// tail reads the fields after the payload: `"outcome":{…}` and optionally
// `,"truncated":{…}`. The common shape, {"duration_ms":N} with maybe
// "decisions", is read by hand; anything else through encoding/json.
func (sc *scanner) tail(tail []byte, into *envelopeTail) bool {
	rest, ok := bytes.CutPrefix(tail, []byte(`"outcome":{"duration_ms":`))
	if ok {
		n := 0
		for n < len(rest) && strings.IndexByte("0123456789.eE+-", rest[n]) >= 0 {
			n++
		}
		dur, err := strconv.ParseFloat(string(rest[:n]), 64)
		rest = rest[n:]
		if r, found := bytes.CutPrefix(rest, []byte(`,"decisions":`)); found {
			n = 0
			for n < len(r) && r[n] >= '0' && r[n] <= '9' {
				n++
			}
			rest = r[n:]
		}
		if r, found := bytes.CutPrefix(rest, []byte("}")); err == nil && found {
			switch {
			case len(r) == 0:
				into.Outcome = &outcome{DurationMS: dur}
				return true
			case bytes.HasPrefix(r, []byte(truncatedKey)) && r[len(r)-1] == '}' &&
				!bytes.ContainsAny(r[len(truncatedKey):len(r)-1], "{}"):
				// A flat map that closes the entry: only its presence counts.
				into.Outcome, into.cut = &outcome{DurationMS: dur}, true
				return true
			}
		}
	}
	sc.scratch = append(append(append(sc.scratch[:0], '{'), tail...), '}')
	return json.Unmarshal(sc.scratch, into) == nil
}

// agentCall notes which subagent made an Agent/Task call.
func (sc *scanner) agentCall(payload []byte) {
	var p struct {
		ToolName  string `json:"tool_name"`
		ToolUseID string `json:"tool_use_id"`
		AgentID   string `json:"agent_id"`
	}
	if json.Unmarshal(payload, &p) != nil || !hookio.IsSubagentTool(p.ToolName) {
		return
	}
	if p.ToolUseID != "" && p.AgentID != "" {
		sc.t.parents[p.ToolUseID] = p.AgentID
	}
}

// envelope reads an entry in spcstr's exact layout. tail is what follows the
// payload, from "outcome" to before the entry's closing brace.
func (sc *scanner) envelope(raw []byte) (ts, name string, payload, tail []byte, ok bool) {
	const (
		pTS  = `{"timestamp":"`
		pSID = `","session_id":"`
		pEv  = `","event":"`
		pIn  = `","input":`
	)
	b, ok := bytes.CutPrefix(raw, []byte(pTS))
	if !ok {
		return
	}
	i := bytes.IndexByte(b, '"')
	if i < 0 {
		return "", "", nil, nil, false
	}
	ts, b = string(b[:i]), b[i:]
	if b, ok = bytes.CutPrefix(b, []byte(pSID)); !ok {
		return
	}
	if b, ok = bytes.CutPrefix(b, []byte(sc.id)); !ok {
		return
	}
	if b, ok = bytes.CutPrefix(b, []byte(pEv)); !ok {
		return
	}
	i = bytes.IndexByte(b, '"')
	if i < 0 || bytes.IndexByte(b[:i], '\\') >= 0 {
		return "", "", nil, nil, false
	}
	name, b = string(b[:i]), b[i:]
	if b, ok = bytes.CutPrefix(b, []byte(pIn)); !ok {
		return
	}
	// b is the payload, the outcome (and truncated), and the closing brace.
	// The payload's strings escape their quotes, so `,"outcome":{` after
	// it is spcstr's own field; it is looked for near the end first. (If a
	// payload holds a nested key of that name and the entry has no outcome,
	// what follows it does not parse as a tail and the entry is decoded
	// whole.)
	key := []byte(`,"outcome":{`)
	win := b[max(0, len(b)-tailWindow):]
	j := bytes.LastIndex(win, key)
	if j >= 0 {
		j += len(b) - len(win)
	} else if j = bytes.LastIndex(b, key); j < 0 {
		return "", "", nil, nil, false
	}
	return ts, name, b[:j], b[j+1 : len(b)-1], true
}

// tailWindow is how far from the end of an entry the outcome is looked for
// first (it is short unless it carries a long answer).
const tailWindow = 2048
