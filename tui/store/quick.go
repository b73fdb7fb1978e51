package store

import (
	"strings"

	"github.com/mailru/easyjson/jlexer"

	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
)

// The timeline reads many more events than the tail: QuickEvent reads only
// what its marks need from an event entry (its time, session, event and
// tool, whether it failed), without decoding the payload. A decision entry
// is read whole (ParseEvent): decisions are few.

var (
	quickNames   = []string{"timestamp", "session_id", "event", "input", "outcome", "decision"}
	inputNames   = []string{"tool_name", "agent_type", "error"}
	outcomeNames = []string{"error"}
)

// QuickEvent reduces an entry to an Event without its Detail (a decision:
// in full). FindEntry finds its entry all the same.
func QuickEvent(raw []byte) (Event, bool) {
	var ev Event
	var decision, inErr, outErr string
	l := jlexer.Lexer{Data: raw}
	ok := jsoncodec.Object(&l, quickNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "timestamp":
			return jsoncodec.Time(l, &ev.At)
		case "session_id":
			return jsoncodec.String(l, &ev.Session)
		case "event":
			return jsoncodec.String(l, &ev.Event)
		case "decision":
			return jsoncodec.String(l, &decision)
		case "outcome":
			return jsoncodec.Object(l, outcomeNames, func(_ string, l *jlexer.Lexer) bool { return jsoncodec.String(l, &outErr) })
		default: // input
			return jsoncodec.Object(l, inputNames, func(name string, l *jlexer.Lexer) bool {
				switch name {
				case "tool_name":
					return jsoncodec.String(l, &ev.Tool)
				case "agent_type":
					return jsoncodec.String(l, &ev.Agent)
				default:
					return jsoncodec.String(l, &inErr)
				}
			})
		}
	})
	if decision != "" || !ok || l.Error() != nil {
		return ParseEvent(raw) // a decision, or an entry of odd kinds
	}
	if ev.Session == "" || ev.At.IsZero() {
		return Event{}, false
	}
	ev.Failed = strings.HasSuffix(ev.Event, "Failure") || inErr != "" || outErr != ""
	cleanEvent(&ev)
	return ev, true
}
