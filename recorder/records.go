package recorder

// The hook's records: the event appended to its log (before any gate
// runs), the answer to answers.json, the gates' decisions to
// decisions.json, and unusable payloads to rejected.json.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/logs"
)

// logEvent appends the event to its log, before any gate runs; the fsync
// of the log starts in the background (waitFlush waits for it).
func (r *run) logEvent(ctx context.Context) {
	r.logged = true
	r.appendLog(ctx)
	if r.flush != nil {
		done := make(chan struct{})
		go func(fl *logs.Flush) {
			defer close(done)
			fl.Sync()
		}(r.flush)
		r.flushed = done
	}
}

// waitFlush waits for the event log's fsync.
func (r *run) waitFlush() {
	if r.flushed != nil {
		<-r.flushed
	}
}

// appendLog writes the event to .spcstr/logs/<event>.json. Its outcome
// holds the time and the errors up to then; the answer follows in
// answers.json (appendAnswer).
func (r *run) appendLog(ctx context.Context) {
	input, truncated := logs.CapPayload(r.raw, r.cfg.Logs.MaxPayloadBytes)
	entry := logs.Entry{
		Timestamp: r.now,
		SessionID: r.ev.SessionID,
		Event:     r.name,
		Input:     input,
		Truncated: truncated,
		Outcome: &logs.Outcome{
			DurationMS: float64(r.opt.Now().Sub(r.start).Microseconds()) / 1000,
			Error:      strings.Join(r.errs, "; "),
		},
	}
	data, err := entry.Encode()
	if err != nil {
		r.fail("encode log entry: %v", err)
		return
	}
	path := r.layout.LogPath(logs.Name(logs.Events, r.name))
	// Flush: the hook's one fsync, through the file the append has open,
	// run by logEvent beside the rest of the hook. The event log is the
	// durable record; state.json, rebuilt from the logs by spcstr
	// rebuild, is written without one.
	fl := &logs.Flush{}
	if err := logs.Append(ctx, path, data, logs.Options{MaxBytes: r.cfg.Logs.MaxBytes, Flush: fl}); err != nil {
		r.fail("append %s: %v", path, err)
		r.keepUnlogged(ctx, data, err)
		return
	}
	r.flush = fl
}

// keepUnlogged records an entry whose own log could not take it (the log
// replaced by a directory, say) in rejected.json, whole, so that the event
// is not lost with only a line on stderr.
func (r *run) keepUnlogged(ctx context.Context, entry []byte, cause error) {
	rec, err := json.Marshal(map[string]any{
		"timestamp":  r.now,
		"reason":     "its log could not be appended to: " + cause.Error(),
		"event":      r.name,
		"session_id": r.ev.SessionID,
		"entry":      json.RawMessage(entry),
	})
	if err == nil {
		err = logs.Append(ctx, r.layout.LogPath(logs.Name(logs.Rejected, "")), rec, logs.Options{MaxBytes: r.cfg.Logs.MaxBytes})
	}
	if err != nil {
		fmt.Fprintf(r.opt.Stderr, "spcstr hook: could not keep the event in rejected.json either: %v\n", err)
	}
}

// appendAnswer records what the hook answers to the event in
// answers.json, once the gates have decided.
func (r *run) appendAnswer(ctx context.Context, answer *hookio.Answer, decisions int, took time.Duration, unavailable, stateErr error) {
	rec := logs.Answer{Timestamp: r.now, SessionID: r.ev.SessionID, Event: r.name, ToolUseID: r.ev.ToolUseID,
		Decisions: decisions, DurationMS: float64(took.Microseconds()) / 1000}
	if out := answer.Encode(); len(out) > 0 {
		rec.Answer = json.RawMessage(strings.TrimSpace(string(out)))
	}
	var errs []string
	if unavailable != nil {
		errs = append(errs, "session state unavailable to the gates: "+unavailable.Error())
	}
	if stateErr != nil && !errors.Is(unavailable, stateErr) {
		errs = append(errs, fmt.Sprintf("update state of session %s: %v", r.ev.SessionID, stateErr))
	}
	rec.Error = strings.Join(errs, "; ")
	data, err := json.Marshal(rec)
	if err != nil {
		return
	}
	if err := logs.Append(ctx, r.layout.LogPath(logs.Name(logs.Answers, "")), data, logs.Options{MaxBytes: r.cfg.Logs.MaxBytes}); err != nil {
		r.fail("append answers.json: %v", err)
	}
}

func (r *run) appendDecisions(ctx context.Context, records []gate.Record) {
	path := r.layout.LogPath(logs.Name(logs.Decisions, ""))
	for _, rec := range records {
		data, err := json.Marshal(rec)
		if err != nil {
			continue
		}
		if err := logs.Append(ctx, path, data, logs.Options{MaxBytes: r.cfg.Logs.MaxBytes}); err != nil {
			r.fail("append %s: %v", path, err)
			return
		}
	}
}

// reject notes an unusable payload in rejected.json and writes nothing else
// (but mends torn logs, as every hook does).
func (r *run) reject(ctx context.Context, reason string) {
	defer r.repairLogs(ctx)
	input, truncated := logs.CapPayload(r.raw, r.cfg.Logs.MaxPayloadBytes)
	rec := map[string]any{
		"timestamp": r.now,
		"reason":    reason,
		"input":     input,
	}
	if len(truncated) > 0 {
		rec["truncated"] = truncated
	}
	if r.ev != nil {
		rec["session_id"] = termtext.Cut(r.ev.SessionID, 300)
		rec["event"] = termtext.Cut(r.ev.HookEventName, 100)
	}
	if r.opt.Event != "" {
		rec["event_arg"] = termtext.Cut(r.opt.Event, 100)
	}
	data, err := json.Marshal(rec)
	if err == nil {
		err = logs.Append(ctx, r.layout.LogPath(logs.Name(logs.Rejected, "")), data, logs.Options{MaxBytes: r.cfg.Logs.MaxBytes})
	}
	if err != nil {
		fmt.Fprintf(r.opt.Stderr, "spcstr hook: could not record rejected payload: %v\n", err)
	}
	fmt.Fprintf(r.opt.Stderr, "spcstr hook: payload rejected: %s\n", reason)
}
