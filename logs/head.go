package logs

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mailru/easyjson/jlexer"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
)

// Head is one log entry read in place: what every reader of the logs asks
// first (its time, session, event, outcome and, for a decisions.json
// record, the gate's decision), the payload left as the bytes it was logged
// as and decoded only on demand (Payload). It is the one read of an entry:
// the dashboard's store, search, export, replay and spcstr otel all start
// here.
//
// Input, Outcome.Answer and Raw share the bytes ReadHead was given: they
// are valid as long as those are (a Stream line only during its callback).
type Head struct {
	// Raw is the whole entry.
	Raw       []byte
	Timestamp time.Time
	SessionID string
	// Event is the hook event's CamelCase name; "" for a decision record.
	Event string
	// Input is the payload as logged (nil when the entry has none).
	Input json.RawMessage
	// Outcome is what spcstr did with the event (nil when not recorded).
	Outcome *Outcome
	// Truncated says that a payload field was cut (Entry.Truncated is not
	// empty).
	Truncated bool
	// Decision is a decisions.json record's decision ("allow", "deny",
	// "block", …); "" for an event.
	Decision string
}

// Payload decodes the entry's payload into v (encoding/json's rules).
func (h *Head) Payload(v any) error { return json.Unmarshal(h.Input, v) }

// Decode decodes the whole entry into v: a decision record (gate.Record)
// or anything else wanting more than the head.
func (h *Head) Decode(v any) error { return json.Unmarshal(h.Raw, v) }

// ReadHead reads raw, one entry of a log, as encoding/json would decode
// its head fields (a field of another JSON type is left empty, as
// encoding/json leaves it). ok is false when raw is not a JSON object.
// For an entry in the exact layout spcstr writes, the payload is not even
// scanned: the fields before it are read in place and the outcome is
// found near the end of the line (the export reads 100,000 events in
// under a second with it; head_test.go holds it to encoding/json). The
// payload of such an entry is checked only when it is decoded.
func ReadHead(raw []byte) (h Head, ok bool) {
	if h, ok = layoutHead(raw); !ok {
		h, ok = membersHead(raw)
	}
	if ok {
		h.SessionID, h.Event, h.Decision = validUTF8(h.SessionID), validUTF8(h.Event), validUTF8(h.Decision)
		if h.Outcome != nil {
			h.Outcome.Error = validUTF8(h.Outcome.Error)
		}
	}
	return h, ok
}

// validUTF8 replaces each byte of s that is not UTF-8 with U+FFFD, as
// encoding/json does when it decodes a string.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s { // an invalid byte ranges as U+FFFD, one per byte
		b.WriteRune(r)
	}
	return b.String()
}

var (
	headNames    = []string{"timestamp", "session_id", "event", "input", "outcome", "truncated", "decision"}
	outcomeNames = []string{"answer", "duration_ms", "decisions", "error"}
)

// membersHead reads any JSON object with the member readers, skipping the
// members it does not need. It is the path of the few entries in another
// layout and of decision records: it checks the whole entry first.
func membersHead(raw []byte) (Head, bool) {
	h := Head{Raw: raw}
	if !json.Valid(raw) { // the lexer is laxer (a number such as 01)
		return Head{}, false
	}
	l := jlexer.Lexer{Data: raw}
	if l.CurrentToken() != jlexer.TokenDelim || !l.IsDelim('{') {
		return Head{}, false
	}
	jsoncodec.Object(&l, headNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "timestamp":
			return jsoncodec.Time(l, &h.Timestamp)
		case "session_id":
			return jsoncodec.String(l, &h.SessionID)
		case "event":
			return jsoncodec.String(l, &h.Event)
		case "decision":
			return jsoncodec.String(l, &h.Decision)
		case "input":
			return jsoncodec.RawView(l, &h.Input)
		case "outcome":
			return readOutcome(l, &h.Outcome)
		default: // truncated
			var sizes map[string]int
			ok := jsoncodec.Map(l, &sizes, jsoncodec.Int[int])
			h.Truncated = len(sizes) > 0
			return ok
		}
	})
	l.Consumed()
	if !l.Ok() {
		return Head{}, false
	}
	return h, true
}

// readOutcome reads an outcome object (null leaves *p nil).
func readOutcome(l *jlexer.Lexer, p **Outcome) bool {
	if l.IsNull() {
		l.Skip()
		*p = nil
		return true
	}
	if *p == nil {
		*p = &Outcome{} // as encoding/json, even for a value of another type
	}
	if l.CurrentToken() != jlexer.TokenDelim || !l.IsDelim('{') {
		l.SkipRecursive()
		return false
	}
	o := *p
	return jsoncodec.Object(l, outcomeNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "answer":
			return jsoncodec.RawView(l, &o.Answer)
		case "duration_ms":
			return jsoncodec.Float(l, &o.DurationMS)
		case "decisions":
			return jsoncodec.Int(l, &o.Decisions)
		default:
			return jsoncodec.String(l, &o.Error)
		}
	})
}

// The layout Entry.Encode writes, up to the payload.
const (
	layoutTS    = `{"timestamp":"`
	layoutSID   = `","session_id":"`
	layoutEvent = `","event":"`
	layoutInput = `","input":`
	outcomeKey  = `,"outcome":{`
	truncKey    = `,"truncated":{`
	// outcomeWindow is how far from the end of an entry the outcome is
	// looked for first (it is short unless it carries a long answer).
	outcomeWindow = 2048
)

// layoutHead reads an entry in spcstr's exact layout,
// {"timestamp":…,"session_id":…,"event":…,"input":{payload},"outcome":{…}}
// (plus "truncated":{…}), or the same without outcome: the strings before
// the payload in place (none holds an escape), the outcome from its key
// found near the end. Anything else is left to membersHead.
func layoutHead(raw []byte) (Head, bool) {
	b, ok := bytes.CutPrefix(raw, []byte(layoutTS))
	if !ok {
		return Head{}, false
	}
	ts, b, ok := plainField(b)
	var at time.Time
	if !ok || at.UnmarshalJSON(raw[len(layoutTS)-1:len(layoutTS)+len(ts)+1]) != nil {
		return Head{}, false
	}
	if b, ok = bytes.CutPrefix(b, []byte(layoutSID)); !ok {
		return Head{}, false
	}
	sid, b, ok := plainField(b)
	if !ok {
		return Head{}, false
	}
	if b, ok = bytes.CutPrefix(b, []byte(layoutEvent)); !ok {
		return Head{}, false
	}
	event, b, ok := plainField(b)
	if !ok {
		return Head{}, false
	}
	if b, ok = bytes.CutPrefix(b, []byte(layoutInput)); !ok || len(b) == 0 || b[0] != '{' || b[len(b)-1] != '}' {
		return Head{}, false
	}
	// b is the payload, the outcome (and truncated), and the closing brace.
	// The payload's strings escape their quotes, so `,"outcome":{` after
	// it is spcstr's own member; it is looked for near the end first. (A
	// payload holding a nested key of that name in an entry with no
	// outcome leaves a tail that does not read, and membersHead decides.)
	win := b[max(0, len(b)-outcomeWindow):]
	j := bytes.LastIndex(win, []byte(outcomeKey))
	if j >= 0 {
		j += len(b) - len(win)
	} else if j = bytes.LastIndex(b, []byte(outcomeKey)); j < 0 {
		// No outcome (a line another writer made): the payload is all but
		// the closing brace, unless a truncated member follows it.
		if hookio.ValueEnd(b) != len(b)-1 {
			return Head{}, false
		}
		return Head{Raw: raw, Timestamp: at, SessionID: sid, Event: event, Input: b[: len(b)-1 : len(b)-1]}, true
	}
	h := Head{Raw: raw, Timestamp: at, SessionID: sid, Event: event, Input: b[:j:j]}
	if !layoutTail(b[j+len(outcomeKey)-1:], &h) {
		return Head{}, false
	}
	return h, true
}

// plainField reads a JSON string's content up to its closing quote when it
// holds no escape (and no control byte), and returns the bytes after the
// quote.
func plainField(b []byte) (s string, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '"')
	if i < 0 || !plainString(b[:i]) {
		return "", nil, false
	}
	return string(b[:i]), b[i:], true
}

// layoutTail reads `{outcome}` + optional `,"truncated":{…}` + `}` (the
// entry's closing brace). The common outcome, {"duration_ms":N} with maybe
// "decisions", is read by hand; any other through the member readers.
func layoutTail(t []byte, h *Head) bool {
	o, rest, ok := plainOutcome(t)
	if !ok {
		// Another outcome (an answer, an error): the member readers, over
		// the outcome alone.
		o = nil
		l := jlexer.Lexer{Data: t}
		if !readOutcome(&l, &o) || !l.Ok() || !json.Valid(t[:l.GetPos()]) {
			return false
		}
		rest = t[l.GetPos():]
	}
	h.Outcome = o
	if r, found := bytes.CutPrefix(rest, []byte(truncKey[:len(truncKey)-1])); found {
		var sizes map[string]int
		l := jlexer.Lexer{Data: r}
		if !jsoncodec.Map(&l, &sizes, jsoncodec.Int[int]) || !l.Ok() || !json.Valid(r[:l.GetPos()]) {
			return false
		}
		h.Truncated = len(sizes) > 0
		rest = r[l.GetPos():]
	}
	return len(rest) == 1 && rest[0] == '}'
}

// plainOutcome reads {"duration_ms":N} or {"duration_ms":N,"decisions":N}
// by hand, and returns what follows it.
func plainOutcome(t []byte) (*Outcome, []byte, bool) {
	rest, ok := bytes.CutPrefix(t, []byte(`{"duration_ms":`))
	if !ok {
		return nil, nil, false
	}
	n := numberLen(rest)
	d, err := strconv.ParseFloat(string(rest[:n]), 64)
	if err != nil || !json.Valid(rest[:n]) {
		return nil, nil, false
	}
	o := &Outcome{DurationMS: d}
	rest = rest[n:]
	if r, found := bytes.CutPrefix(rest, []byte(`,"decisions":`)); found {
		n = 0
		for n < len(r) && r[n] >= '0' && r[n] <= '9' {
			n++
		}
		k, err := strconv.Atoi(string(r[:n]))
		if err != nil || n > 1 && r[0] == '0' {
			return nil, nil, false
		}
		o.Decisions, rest = k, r[n:]
	}
	rest, ok = bytes.CutPrefix(rest, []byte("}"))
	return o, rest, ok
}

// numberLen is the length of the JSON number at the start of b.
func numberLen(b []byte) int {
	n := 0
	for n < len(b) && (b[n] >= '0' && b[n] <= '9' || b[n] == '.' || b[n] == 'e' || b[n] == 'E' || b[n] == '+' || b[n] == '-') {
		n++
	}
	return n
}
