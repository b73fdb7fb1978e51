package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
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
	id    string
	idKey []byte // "session_id":"<id>"

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

// decision takes one of the session's decision records, decoded whole as
// gate.Record (the decisions log's schema): reading its head first would
// be a second pass over every record (measured: +0.1 s of CPU on the
// 100,000-event export).
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

// event takes one of the session's event log entries: its head read in
// place (logs.ReadHead), the payload decoded only for a subagent's
// Agent/Task call.
func (sc *scanner) event(raw []byte) {
	h, ok := logs.ReadHead(raw)
	if !ok || h.SessionID != sc.id {
		return
	}
	t := sc.t
	t.events++
	t.byType[h.Event]++
	if t.first.IsZero() || h.Timestamp.Before(t.first) {
		t.first = h.Timestamp
	}
	if h.Timestamp.After(t.last) {
		t.last = h.Timestamp
	}
	if o := h.Outcome; o != nil {
		t.hookMS = append(t.hookMS, o.DurationMS)
		if len(o.Answer) > 0 && string(o.Answer) != "null" {
			t.answers++
		}
		if o.Error != "" {
			t.hookErrors++
		}
	}
	if h.Truncated {
		t.truncated++
	}
	if h.Event == hookio.PreToolUse && bytes.Contains(h.Input, []byte(`"agent_id"`)) {
		sc.agentCall(&h)
	}
}

// agentCall notes which subagent made an Agent/Task call.
func (sc *scanner) agentCall(h *logs.Head) {
	var p struct {
		ToolName  string `json:"tool_name"`
		ToolUseID string `json:"tool_use_id"`
		AgentID   string `json:"agent_id"`
	}
	if h.Payload(&p) != nil || !hookio.IsSubagentTool(p.ToolName) {
		return
	}
	if p.ToolUseID != "" && p.AgentID != "" {
		sc.t.parents[p.ToolUseID] = p.AgentID
	}
}
