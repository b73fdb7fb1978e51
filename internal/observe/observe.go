// Package observe owns spcstr's observability event model: the events one
// hook invocation produces (hook_enter, hook_exit, a decision per gate or
// strategy result, an error per failure, and the custom events strategies
// declare), the verbosity levels that decide which events are kept and how
// much each carries, and how one invocation's events reach the session's
// append-only JSON Lines log (.spcstr/sessions/<id>/observability.jsonl,
// named and appended by package logs). A Request buffers one hook's events
// in memory and writes them in one append at the hook's exit.
// docs/observability.md describes the model.
package observe

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/mailru/easyjson/jwriter"

	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
	"github.com/dylan-gluck/spcstr/internal/termtext"

	"github.com/dylan-gluck/spcstr/logs"
)

// Event types.
const (
	HookEnter = "hook_enter"
	HookExit  = "hook_exit"
	Decision  = "decision"
	Error     = "error"
	Custom    = "custom"
)

// Custom event types the built-in gates declare.
const (
	// FeatureProgress: long-running saw the feature list (passing/total).
	FeatureProgress = "feature_progress"
	// ThresholdCrossed: token-budget crossed a warn/critical/emergency level.
	ThresholdCrossed = "threshold_crossed"
	// PhaseResult: the feedback loop recorded a phase's result.
	PhaseResult = "phase_result"
)

//go:generate go run ../../tools/jsongen -no_std_marshalers observe.go

// Event is one line of observability.jsonl. The first six fields are in
// every event; the others belong to one event type. Its encoder is
// generated (observe_easyjson.go): encoding/json would build one by
// reflection in every hook process.
//
//easyjson:json
type Event struct {
	SessionID string    `json:"session_id"`
	RequestID string    `json:"request_id"`
	Timestamp time.Time `json:"timestamp"`
	EventType string    `json:"event_type"`
	// StrategyName is the gate or strategy the event is about, as named in
	// decisions.json ("feedback", "strategy:token-budget"); "" for the
	// hook's own events (enter, exit, its own errors).
	StrategyName string `json:"strategy_name"`
	// HookName is the CamelCase event, with the tool for tool events
	// ("PreToolUse:Bash").
	HookName string `json:"hook_name"`
	// DurationMS is the hook's duration (hook_exit) or, at verbose, the
	// gate's (decision).
	DurationMS *float64 `json:"duration_ms,omitempty"`

	// Decision events.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Message  string `json:"message,omitempty"`
	DryRun   bool   `json:"dry_run,omitempty"`

	// Error events.
	ErrorType    string `json:"error_type,omitempty"`
	ErrorMessage string `json:"error_message,omitempty"`
	Traceback    string `json:"traceback,omitempty"`

	// CustomEventType is a custom event's declared type.
	CustomEventType string `json:"custom_event_type,omitempty"`

	// Payload is the event's detail; how much depends on the verbosity.
	Payload Payload `json:"payload"`
}

// Payload is an event's detail. It is written with its keys sorted, as
// encoding/json writes a map, so that the same events give the same lines.
type Payload map[string]any

// MarshalEasyJSON writes p for the generated encoder, keys sorted.
func (p Payload) MarshalEasyJSON(w *jwriter.Writer) { jsoncodec.WriteMap(w, p, jsoncodec.WriteAny) }

// Verbosity decides which events are kept and how much they carry.
type Verbosity uint8

// Verbosity levels. Off keeps nothing (observability.enabled: false).
const (
	Off Verbosity = iota
	Minimal
	Standard
	Verbose
)

// DefaultVerbosity is used when config.yaml names none.
const DefaultVerbosity = Standard

// String returns the level's name in config.yaml.
func (v Verbosity) String() string {
	switch v {
	case Minimal:
		return "minimal"
	case Standard:
		return "standard"
	case Verbose:
		return "verbose"
	}
	return "off"
}

// ParseVerbosity reads observability.verbosity: minimal, standard or
// verbose ("" is the default). Anything else is an error and the default.
func ParseVerbosity(s string) (Verbosity, error) {
	switch s {
	case "":
		return DefaultVerbosity, nil
	case "minimal":
		return Minimal, nil
	case "standard":
		return Standard, nil
	case "verbose":
		return Verbose, nil
	}
	return DefaultVerbosity, fmt.Errorf("observability.verbosity %q: want minimal, standard or verbose (using %s)", s, DefaultVerbosity)
}

// Keeps reports whether events of type eventType are written at v:
// minimal keeps decisions and errors, standard adds hook enter/exit and
// custom events, verbose keeps the same events with more in each.
func (v Verbosity) Keeps(eventType string) bool {
	switch v {
	case Off:
		return false
	case Minimal:
		return eventType == Decision || eventType == Error
	}
	return true
}

// NewRequestID returns a random 16-hex-digit id for one hook invocation.
// math/rand/v2 is seeded from the OS per process; crypto/rand would add
// its package init to every hook call for no benefit here.
func NewRequestID() string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], rand.Uint64())
	return hex.EncodeToString(b[:])
}

// Request collects the events of one hook invocation. Every method is safe
// on a nil *Request (observability not set up: nothing is kept), and none
// does I/O but Flush.
type Request struct {
	sessionID string
	id        string
	hook      string
	v         Verbosity
	clock     func() time.Time
	start     time.Time
	events    []Event
	timing    map[string]float64
	gates     []map[string]any
}

// New starts the Request of one hook invocation of session sessionID, for
// hook (see HookName), that began at start; clock stamps later events
// (nil: time.Now). At Off it only carries the request id.
func New(sessionID, hook string, v Verbosity, start time.Time, clock func() time.Time) *Request {
	if clock == nil {
		clock = time.Now
	}
	return &Request{sessionID: sessionID, id: NewRequestID(), hook: hook, v: v, clock: clock, start: start}
}

// HookName is the hook_name of an event: the CamelCase event name, with
// ":<tool>" for an event about a tool.
func HookName(event, tool string) string {
	if tool == "" {
		return event
	}
	return event + ":" + tool
}

// ID returns the request id ("" on nil), shared with decisions.json.
func (r *Request) ID() string {
	if r == nil {
		return ""
	}
	return r.id
}

// Verbosity returns the request's level (Off on nil).
func (r *Request) Verbosity() Verbosity {
	if r == nil {
		return Off
	}
	return r.v
}

// Verbose reports whether the request keeps verbose detail: callers skip
// computing it otherwise.
func (r *Request) Verbose() bool { return r.Verbosity() == Verbose }

// Events returns the events kept so far.
func (r *Request) Events() []Event {
	if r == nil {
		return nil
	}
	return r.events
}

func (r *Request) add(e Event) {
	e.SessionID, e.RequestID = r.sessionID, r.id
	if e.HookName == "" {
		e.HookName = r.hook
	}
	if e.Timestamp.IsZero() {
		e.Timestamp = r.clock().UTC()
	}
	if e.Payload == nil {
		e.Payload = map[string]any{}
	}
	r.events = append(r.events, e)
}

// Enter records hook_enter. summary is kept at standard; input (the whole
// payload, already capped) is added at verbose.
func (r *Request) Enter(summary map[string]any, input json.RawMessage) {
	if !r.Verbosity().Keeps(HookEnter) {
		return
	}
	p := map[string]any{}
	for k, v := range summary {
		if v != "" && v != nil {
			p[k] = v
		}
	}
	if r.v == Verbose && len(input) > 0 {
		p["input"] = input
	}
	// hook_enter comes first whenever it is recorded: the recorder builds
	// it late, off the path to the hook's answer.
	r.add(Event{EventType: HookEnter, Timestamp: r.start.UTC(), Payload: p})
	last := len(r.events) - 1
	enter := r.events[last]
	copy(r.events[1:], r.events[:last])
	r.events[0] = enter
}

// Phase notes, at verbose, how long a step of the hook took (ms since
// since), for hook_exit's timing detail.
func (r *Request) Phase(name string, since time.Time) {
	if !r.Verbose() {
		return
	}
	if r.timing == nil {
		r.timing = map[string]float64{}
	}
	r.timing[name] += ms(r.clock().Sub(since))
}

// GateTime notes, at verbose, how long one gate took, for hook_exit's
// timing detail.
func (r *Request) GateTime(name string, d time.Duration) {
	if !r.Verbose() {
		return
	}
	r.gates = append(r.gates, map[string]any{"gate": name, "duration_ms": ms(d)})
}

// Exit records hook_exit with the hook's duration; verbose adds the timing
// detail (each phase and each gate).
func (r *Request) Exit(summary map[string]any) {
	if !r.Verbosity().Keeps(HookExit) {
		return
	}
	now := r.clock()
	d := ms(now.Sub(r.start))
	p := map[string]any{}
	for k, v := range summary {
		p[k] = v
	}
	if r.v == Verbose {
		if len(r.timing) > 0 {
			p["timing_ms"] = r.timing
		}
		if len(r.gates) > 0 {
			p["gates"] = r.gates
		}
	}
	r.add(Event{EventType: HookExit, Timestamp: now.UTC(), DurationMS: &d, Payload: p})
}

// DecisionInfo is one gate or strategy result.
type DecisionInfo struct {
	Source        string
	Decision      string
	Reason        string
	Message       string
	Context       string
	SystemMessage string
	DryRun        bool
	DurationMS    float64
	Timestamp     time.Time
}

// standardText caps the texts a decision carries below verbose.
const standardText = 1024

// Decision records a decision event. Below verbose its context is cut to
// 1 KiB; verbose keeps it whole, adds the gate's duration and detail
// (the transcript context the caller passes).
func (r *Request) Decision(d DecisionInfo, detail map[string]any) {
	if !r.Verbosity().Keeps(Decision) {
		return
	}
	e := Event{EventType: Decision, StrategyName: d.Source, Timestamp: d.Timestamp,
		Decision: d.Decision, Reason: d.Reason, Message: d.Message, DryRun: d.DryRun}
	p := map[string]any{}
	if d.SystemMessage != "" {
		p["system_message"] = d.SystemMessage
	}
	if d.Context != "" {
		p["context"] = d.Context
		if r.v != Verbose {
			p["context"] = Cut(d.Context, standardText)
		}
	}
	if r.v == Verbose {
		dur := d.DurationMS
		e.DurationMS = &dur
		for k, v := range detail {
			p[k] = v
		}
	}
	e.Payload = p
	r.add(e)
}

// Error records an error event: source is the gate that failed ("" for
// the hook itself), errType the error's kind, traceback (a panic's stack,
// or the chain of wrapped errors) kept only at verbose.
func (r *Request) Error(source, errType, message, traceback string) {
	if !r.Verbosity().Keeps(Error) {
		return
	}
	e := Event{EventType: Error, StrategyName: source, ErrorType: errType, ErrorMessage: message}
	if r.v == Verbose {
		e.Traceback = traceback
	}
	r.add(e)
}

// Emit records a custom event of type typ for source, which declared the
// types in declared. An undeclared type is recorded as an error instead.
// Below verbose the payload keeps only its scalar values (texts cut to
// 200 bytes); verbose keeps it whole.
func (r *Request) Emit(source string, declared []string, typ string, payload map[string]any) {
	if r == nil {
		return
	}
	if !slices.Contains(declared, typ) {
		r.Error(source, "undeclared_custom_event", fmt.Sprintf("custom event type %q is not declared by %s", typ, source), "")
		return
	}
	if !r.v.Keeps(Custom) {
		return
	}
	p := map[string]any{}
	for k, v := range payload {
		if r.v == Verbose {
			p[k] = v
			continue
		}
		switch x := v.(type) {
		case string:
			p[k] = Cut(x, 200)
		case bool, int, int64, float64, uint64, int32:
			p[k] = x
		}
	}
	r.add(Event{EventType: Custom, StrategyName: source, CustomEventType: typ, Payload: p})
}

// Encode returns the kept events as JSON Lines (nil when there are none).
func (r *Request) Encode() []byte {
	if r == nil || len(r.events) == 0 {
		return nil
	}
	var buf []byte
	for i := range r.events {
		b, err := jsoncodec.Marshal(&r.events[i])
		if err != nil { // a payload value JSON cannot hold: keep the rest
			r.events[i].Payload = map[string]any{"encode_error": err.Error()}
			if b, err = jsoncodec.Marshal(&r.events[i]); err != nil {
				continue
			}
		}
		buf = append(append(buf, b...), '\n')
	}
	return buf
}

// Flush appends the kept events to the JSON Lines log at path in one
// write, and forgets them.
func (r *Request) Flush(path string) error {
	data := r.Encode()
	if len(data) == 0 {
		return nil
	}
	r.events = r.events[:0]
	return logs.AppendLines(path, data)
}

// Cut shortens s to at most n bytes (on a rune boundary), marking the cut.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return termtext.Cut(s, n) + "…"
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
