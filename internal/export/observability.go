package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/observe"
	"github.com/dylan-gluck/spcstr/logs"
)

// Observability summarises the session's observability events
// (.spcstr/sessions/<id>/observability.jsonl): the timeline of decisions,
// errors and custom events, the errors, and how often each custom event
// came. A session recorded without that file gets its timeline and errors
// from decisions.json.
type Observability struct {
	// Source is where the timeline comes from: "observability.jsonl",
	// "decisions.json", or "" when neither has anything.
	Source string `json:"source"`
	// Hooks counts the hook runs observed (hook_exit events; 0 at
	// verbosity minimal).
	Hooks        int             `json:"hooks"`
	Timeline     []TimelineEvent `json:"timeline"`
	Errors       []GateError     `json:"errors"`
	CustomEvents []CustomCount   `json:"custom_events"`
}

// TimelineEvent is one decision, error or custom event.
type TimelineEvent struct {
	Timestamp    time.Time `json:"timestamp"`
	RequestID    string    `json:"request_id"`
	EventType    string    `json:"event_type"`
	StrategyName string    `json:"strategy_name"`
	HookName     string    `json:"hook_name"`
	// Decision is a decision's class: allow, warn (an allow that warned
	// the user), deny or block; "" for other events.
	Decision        string `json:"decision"`
	DryRun          bool   `json:"dry_run"`
	CustomEventType string `json:"custom_event_type"`
	// Details is one line: a decision's reason or message, an error's
	// type and message, a custom event's payload as key=value pairs.
	Details string `json:"details"`
	// Payload is a custom event's payload as recorded (null otherwise).
	Payload map[string]any `json:"payload"`
}

// GateError is one error event: a gate or strategy that failed, or the
// hook's own problem (StrategyName "").
type GateError struct {
	Timestamp    time.Time `json:"timestamp"`
	StrategyName string    `json:"strategy_name"`
	HookName     string    `json:"hook_name"`
	ErrorType    string    `json:"error_type"`
	ErrorMessage string    `json:"error_message"`
}

// CustomCount is how many custom events of one type one source emitted.
type CustomCount struct {
	Type         string `json:"type"`
	StrategyName string `json:"strategy_name"`
	Count        int    `json:"count"`
}

// Decision classes of the summary.
const (
	ClassAllow = "allow"
	ClassWarn  = "warn"
	ClassDeny  = "deny"
	ClassBlock = "block"
)

// class tells a decision's class: an allow that showed the user a message
// is a warning.
func class(decision, reason, systemMessage string) string {
	if decision == gate.Allow && (systemMessage != "" || reason == gate.ReasonWarning) {
		return ClassWarn
	}
	return decision
}

// observability reads the session's observability.jsonl, falling back to
// the decision records.
func (b *builder) observability(id string, recs []Decision) (Observability, error) {
	o := Observability{Timeline: []TimelineEvent{}, Errors: []GateError{}, CustomEvents: []CustomCount{}}
	path, err := b.layout.ObservabilityLog(id)
	if err != nil {
		return o, err
	}
	found := false
	counts := map[[2]string]int{}
	err = logs.ScanLines(path, func(line []byte) error {
		var e observe.Event
		if json.Unmarshal(line, &e) != nil || e.SessionID != id {
			return nil // not an event of this session: skipped
		}
		found = true
		t := TimelineEvent{Timestamp: e.Timestamp.UTC(), RequestID: e.RequestID, EventType: e.EventType,
			StrategyName: e.StrategyName, HookName: e.HookName, DryRun: e.DryRun}
		switch e.EventType {
		case observe.HookExit:
			o.Hooks++
			return nil
		case observe.Decision:
			sm, _ := e.Payload["system_message"].(string)
			c, _ := e.Payload["context"].(string)
			t.Decision = class(e.Decision, e.Reason, sm)
			t.Details = decisionDetails(e.Reason, e.Message, sm, c)
		case observe.Error:
			t.Details = strings.TrimSpace(e.ErrorType + ": " + e.ErrorMessage)
			o.Errors = append(o.Errors, GateError{Timestamp: t.Timestamp, StrategyName: e.StrategyName, HookName: e.HookName,
				ErrorType: e.ErrorType, ErrorMessage: e.ErrorMessage})
		case observe.Custom:
			t.CustomEventType, t.Payload = e.CustomEventType, e.Payload
			t.Details = pairs(e.Payload)
			counts[[2]string{e.CustomEventType, e.StrategyName}]++
		default:
			return nil
		}
		o.Timeline = append(o.Timeline, t)
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return o, fmt.Errorf("observability: %w", err)
	}
	if found {
		o.Source = logs.ObservabilityFile
	} else if len(recs) > 0 {
		o.Source = "decisions.json"
		for _, r := range recs {
			t := TimelineEvent{Timestamp: r.Timestamp, RequestID: r.RequestID, EventType: observe.Decision, StrategyName: r.Source,
				HookName: r.Hook, DryRun: r.DryRun, Decision: class(r.Decision, r.Reason, r.SystemMessage),
				Details: decisionDetails(r.Reason, r.Message, r.SystemMessage, r.Context)}
			if r.Error != "" {
				t.EventType, t.Decision, t.Details = observe.Error, "", r.Error
				o.Errors = append(o.Errors, GateError{Timestamp: r.Timestamp, StrategyName: r.Source, HookName: r.Hook, ErrorType: "gate", ErrorMessage: r.Error})
			}
			o.Timeline = append(o.Timeline, t)
		}
	}
	sort.SliceStable(o.Timeline, func(i, j int) bool { return o.Timeline[i].Timestamp.Before(o.Timeline[j].Timestamp) })
	for k, n := range counts {
		o.CustomEvents = append(o.CustomEvents, CustomCount{Type: k[0], StrategyName: k[1], Count: n})
	}
	sort.Slice(o.CustomEvents, func(i, j int) bool {
		a, b := o.CustomEvents[i], o.CustomEvents[j]
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.StrategyName < b.StrategyName
	})
	return o, nil
}

// decisionDetails is a decision's one-line detail: its reason, the
// warning when that is all the reason says, the context's first line
// after "context", or the message when there is no reason.
func decisionDetails(reason, message, systemMessage, context string) string {
	switch {
	case systemMessage != "" && (reason == "" || reason == gate.ReasonWarning):
		return firstLine(systemMessage)
	case reason == gate.ReasonContext && context != "":
		return reason + ": " + firstLine(context)
	case reason != "":
		return reason
	}
	return firstLine(message)
}

// pairs renders a payload as key=value pairs in key order.
func pairs(p map[string]any) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		v := p[k]
		switch x := v.(type) {
		case float64:
			fmt.Fprintf(&b, "%s=%s", k, strconv.FormatFloat(x, 'f', -1, 64))
		case string, bool, nil:
			fmt.Fprintf(&b, "%s=%v", k, v)
		default:
			j, _ := json.Marshal(v)
			fmt.Fprintf(&b, "%s=%s", k, j)
		}
	}
	return b.String()
}
