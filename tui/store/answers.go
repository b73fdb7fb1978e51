package store

import (
	"bytes"
	"path/filepath"
	"time"

	"github.com/dylan-gluck/spcstr/logs"
)

// answerLag bounds how long after its event an answer is appended (a
// hook's gates run within its timeout, which is far shorter): older
// answers further back in answers.json cannot be the event's.
const answerLag = 10 * time.Minute

// FindAnswer returns what the hook answered to the event whose log entry
// is raw (as FindEntry returns it). The hook logs an event before its
// gates run and appends the answer to answers.json once they have decided,
// joined by the event's session, name, time and tool_use_id; an entry
// written before that order holds the answer in its own outcome, which is
// returned as an Answer too. ok is false when the hook answered nothing
// on record (no gate spoke, or the record is further back than the
// dashboard reads).
func FindAnswer(dir string, raw []byte) (logs.Answer, bool) {
	h, ok := logs.ReadHead(raw)
	if !ok || h.Event == "" || h.SessionID == "" {
		return logs.Answer{}, false
	}
	if o := h.Outcome; o != nil && (len(o.Answer) > 0 || o.Decisions > 0) {
		return logs.Answer{Timestamp: h.Timestamp, SessionID: h.SessionID, Event: h.Event,
			Answer: bytes.Clone(o.Answer), Decisions: o.Decisions, DurationMS: o.DurationMS, Error: o.Error}, true
	}
	var p struct {
		ToolUseID string `json:"tool_use_id"`
	}
	_ = h.Payload(&p) // no payload, or not an object: no tool call id
	key := logs.EventKey(h.SessionID, h.Event, p.ToolUseID, h.Timestamp)
	needle := []byte(`"session_id":` + jsonString(h.SessionID))
	var found logs.Answer
	path := filepath.Join(dir, logs.Name(logs.Answers, "")+logs.Ext)
	_ = logs.Backward(path, entrySearchBytes, func(line []byte) error {
		if len(line) > maxEntryBytes || !bytes.Contains(line, needle) {
			return nil
		}
		a, ok := logs.ReadAnswer(line)
		if !ok {
			return nil
		}
		if a.Key() == key {
			a.Answer = bytes.Clone(a.Answer)
			found = a
			return logs.ErrStop
		}
		if a.Timestamp.Before(h.Timestamp.Add(-answerLag)) {
			return logs.ErrStop // appended before the event's hook began: it is not there
		}
		return nil
	})
	return found, found.SessionID != ""
}
