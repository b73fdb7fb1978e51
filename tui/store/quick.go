package store

import (
	"strings"

	"github.com/mailru/easyjson/jlexer"

	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
	"github.com/dylan-gluck/spcstr/logs"
)

// The timeline reads many more events than the tail: QuickEvent reads only
// what its marks need from an event entry (its time, session, event and
// tool, whether it failed), without decoding the payload. A decision entry
// is read whole (ParseEvent): decisions are few.

var inputNames = []string{"tool_name", "agent_type", "error"}

// QuickEvent reduces an entry to an Event without its Detail (a decision:
// in full). FindEntry finds its entry all the same.
func QuickEvent(raw []byte) (Event, bool) {
	h, ok := logs.ReadHead(raw)
	if !ok || h.Decision != "" {
		return ParseEvent(raw) // a decision, or an entry of odd kinds
	}
	if h.SessionID == "" || h.Timestamp.IsZero() {
		return Event{}, false
	}
	ev := Event{At: h.Timestamp, Session: h.SessionID, Event: h.Event}
	var inErr string
	if len(h.Input) > 0 && !jsoncodec.Members(h.Input, inputNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "tool_name":
			return jsoncodec.String(l, &ev.Tool)
		case "agent_type":
			return jsoncodec.String(l, &ev.Agent)
		default:
			return jsoncodec.String(l, &inErr)
		}
	}) && h.Input[0] == '{' {
		return ParseEvent(raw) // a payload of odd kinds
	}
	ev.Failed = strings.HasSuffix(ev.Event, "Failure") || inErr != "" || h.Outcome != nil && h.Outcome.Error != ""
	cleanEvent(&ev)
	return ev, true
}
