package store

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/observe"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// customWindow is how much of the end of a session's observability.jsonl
// ReadCustom reads.
const customWindow = 128 << 10

// ReadCustom returns the custom events (Event "Custom", Tool the strategy)
// among the newest entries of one session's observability.jsonl, oldest
// first, their text made safe to print. It reads at most the file's last
// 128 KiB; a missing or unreadable file gives none.
func ReadCustom(l state.Layout, id string) []Event {
	path, err := l.ObservabilityLog(id)
	if err != nil {
		return nil
	}
	var out []Event
	_ = logs.TailLines(path, customWindow, func(line []byte) error {
		if ev, ok := parseCustom(line, id); ok {
			cleanEvent(&ev)
			out = append(out, ev)
		}
		return nil
	})
	SortEvents(out)
	return out
}

// parseCustom reduces one observability event to an Event when it is a
// custom event of session id.
func parseCustom(line []byte, id string) (Event, bool) {
	var e observe.Event // the observability log's one decoder, as the export's
	if json.Unmarshal(line, &e) != nil || e.EventType != observe.Custom || e.SessionID != id || e.Timestamp.IsZero() {
		return Event{}, false
	}
	keys := make([]string, 0, len(e.Payload))
	for k := range e.Payload {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s:", e.CustomEventType, e.HookName)
	for _, k := range keys {
		switch v := e.Payload[k].(type) {
		case float64:
			fmt.Fprintf(&b, " %s=%s", k, strconv.FormatFloat(v, 'f', -1, 64))
		case string, bool:
			fmt.Fprintf(&b, " %s=%v", k, v)
		}
	}
	return Event{At: e.Timestamp, Session: e.SessionID, Event: "Custom", Tool: e.StrategyName, Detail: OneLine(b.String(), 300)}, true
}

// FindCustom finds the observability line a custom event ev was read from
// (ReadCustom), for its full view.
func FindCustom(l state.Layout, ev Event) ([]byte, bool) {
	path, err := l.ObservabilityLog(ev.Session)
	if err != nil {
		return nil, false
	}
	var found []byte
	_ = logs.TailLines(path, customWindow, func(line []byte) error {
		if c, ok := parseCustom(line, ev.Session); ok {
			cleanEvent(&c)
			typ, _, _ := strings.Cut(c.Detail, " ")
			if c.At.Equal(ev.At) && c.Tool == ev.Tool && strings.HasPrefix(ev.Detail, typ+" ") {
				found = append(found[:0], line...)
			}
		}
		return nil
	})
	return found, found != nil
}
