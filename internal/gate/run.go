package gate

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/observe"
	"github.com/dylan-gluck/spcstr/state"
)

// Policy is how Run treats the gates' verdicts beyond what each gate says.
type Policy struct {
	// DryRun is config.yaml's top-level dry_run. The environment's
	// SPCSTR_DRY_RUN=1 (read through Input.Getenv) has the same effect.
	DryRun bool
	// Clock times each gate; nil means time.Now. The hook passes its
	// injected clock: mixing it with the wall clock gives nonsense
	// durations under a fixed clock (tests, replays).
	Clock func() time.Time
	// StopBlockLimit is config.yaml's stop_block_limit: how many Stops in
	// a row a gate may block without progress before the next one goes
	// through (0: DefaultStopBlockLimit). A gate's own limit (StopLimiter)
	// wins.
	StopBlockLimit int
}

// Result is what Run decided for one event.
type Result struct {
	// Answer is the one answer the hook prints (empty when no gate spoke).
	Answer *hookio.Answer
	// Records are the decision records for decisions.json, stamped with
	// the request, session, time and hook.
	Records []Record
	// Failures describe the gates that failed ("<gate> failed: <err>"),
	// already added to the session's errors; the hook also prints them.
	Failures []string
}

// Run is the verdict pipeline: it asks every gate about the event, in
// order, and decides the one answer. Along the way it
//   - turns a gate's error or panic into fail-open (an allow record) or,
//     for a gate whose fail_mode is closed, a deny or block;
//   - marks every verdict dry-run under the global dry-run;
//   - lets a Stop through once a gate has blocked maxStopBlocks Stops in a
//     row without progress (escalate.go), and hands every escalation to the
//     advisors among the gates (advise.go);
//   - once the event goes through, lets the followers speak (after.go);
//   - records every decision, then drops the decisions of dry-run verdicts
//     (their context and messages stay) and merges the rest (Merge).
//
// Run writes into in.Session: gate failures go to its errors and the Stop
// counts to its gates. docs/answers.md describes the rules.
func Run(ctx context.Context, gates []Gate, in *Input, p Policy) Result {
	if len(gates) == 0 {
		return Result{Answer: &hookio.Answer{}}
	}
	clock := p.Clock
	if clock == nil {
		clock = time.Now
	}
	dry := p.DryRun || in.Getenv != nil && in.Getenv("SPCSTR_DRY_RUN") == "1"
	s := in.Session
	resetStopCounts(s, in.Name)
	var (
		all      []Verdict
		records  []Record
		failures []string
	)
	obs := in.Observe
	for _, g := range gates {
		t0 := clock()
		var (
			verdicts []Verdict
			err      error
		)
		if in.Unavailable != nil {
			if !declares(g, in) {
				continue
			}
			err = fmt.Errorf("session state unavailable: %w", in.Unavailable)
		} else {
			verdicts, err = evaluate(ctx, g, in)
		}
		took := clock().Sub(t0)
		dur := float64(took.Microseconds()) / 1000
		obs.GateTime(g.Name(), took)
		if err != nil && isSideWrite(err) {
			// The gate decided; only a write after it failed. Reported,
			// never a verdict of its own.
			msg := fmt.Sprintf("%s: %v", g.Name(), err)
			s.Errors = append(s.Errors, state.Error{Timestamp: in.Now, Type: state.ErrorSpcstr, Message: msg})
			failures = append(failures, msg)
			reportError(obs, g.Name(), err)
			err = nil
		}
		if err != nil {
			msg := fmt.Sprintf("%s failed: %v", g.Name(), err)
			s.Errors = append(s.Errors, state.Error{Timestamp: in.Now, Type: state.ErrorSpcstr, Message: msg})
			failures = append(failures, msg)
			reportError(obs, g.Name(), err)
			vs, rec := failed(g, in.Name, err)
			if rec.Decision == Allow {
				verdicts = append(verdicts, vs...) // fail open: what the gate said still counts
			} else {
				verdicts = vs
			}
			rec.DurationMS = dur
			records = append(records, rec)
		}
		if dry {
			for i := range verdicts {
				verdicts[i].DryRun = true
			}
		}
		verdicts = escalate(s, in.Name, g.Name(), verdicts, stopLimit(g, p, in.Getenv))
		for i, v := range verdicts {
			if v.Source == "" {
				v.Source = g.Name() // a verdict speaks for its gate unless it names a strategy
				verdicts[i].Source = v.Source
			}
			if err == nil {
				if rec, ok := record(v, g.Name(), dur); ok {
					records = append(records, rec)
				}
			}
		}
		all = append(all, verdicts...)
	}
	// Escalations go to the advisors (the escalation-advisor strategy).
	var (
		advice         []Verdict
		adviceRecs     []Record
		adviceFailures []string
	)
	if in.Unavailable == nil {
		advice, adviceRecs, adviceFailures = Advise(ctx, gates, in, all, clock)
	}
	for _, msg := range adviceFailures {
		s.Errors = append(s.Errors, state.Error{Timestamp: in.Now, Type: state.ErrorSpcstr, Message: msg})
		failures = append(failures, msg)
	}
	if dry {
		for i := range advice {
			advice[i].DryRun = true
		}
	}
	all, records = append(all, advice...), append(records, adviceRecs...)
	// What speaks only when the event goes through (after.go).
	if in.Unavailable == nil {
		more, moreRecs, moreFailures := follow(ctx, gates, in, all, clock)
		for _, msg := range moreFailures {
			s.Errors = append(s.Errors, state.Error{Timestamp: in.Now, Type: state.ErrorSpcstr, Message: msg})
			failures = append(failures, msg)
		}
		all, records = append(all, more...), append(records, moreRecs...)
	}
	reqID := obs.ID()
	if reqID == "" {
		reqID = observe.NewRequestID()
	}
	stamp(records, reqID, s.SessionID, in.Now, in.Name, dry)
	observeDecisions(in, records)
	// Dry-run (global, or a verdict's own): log everything, enforce
	// nothing: drop the decision, and tell the user what would have been
	// done (dryrun.go).
	for i := range all {
		if all[i].DryRun && enforces(all[i]) {
			all[i] = unenforce(all[i], in)
		}
	}
	return Result{Answer: Merge(in.Name, all), Records: records, Failures: failures}
}

// evaluate runs one gate, turning a panic into an error so one broken gate
// cannot take the hook down.
func evaluate(ctx context.Context, g Gate, in *Input) (v []Verdict, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &panicError{value: p, stack: debug.Stack()}
		}
	}()
	return g.Evaluate(ctx, in)
}

// panicError is a gate's panic, with the stack it was raised on.
type panicError struct {
	value any
	stack []byte
	what  string // "panic" (a gate) or "advisor panic"
}

func (p *panicError) Error() string {
	what := p.what
	if what == "" {
		what = "panic"
	}
	return fmt.Sprintf("%s: %v", what, p.value)
}

// record turns a verdict of gate into its decision record: a decision, or
// an allow for a verdict that only tells Claude or the user something
// (context, a warning). A verdict that says nothing leaves no record.
func record(v Verdict, gate string, dur float64) (Record, bool) {
	src := v.Source
	if src == "" {
		src = gate // a verdict speaks for its gate unless it names a strategy
	}
	rec := Record{Source: src, Decision: v.Decision, Reason: v.Reason, Message: v.Message, DurationMS: dur, DryRun: v.DryRun,
		SystemMessage: observe.Cut(v.SystemMessage, recordText), Context: observe.Cut(v.Context, recordText)}
	if rec.Decision == "" {
		if v.Context == "" && v.SystemMessage == "" {
			return Record{}, false
		}
		rec.Decision = Allow
		if rec.Reason == "" {
			rec.Reason = ReasonContext
			if v.SystemMessage != "" {
				rec.Reason = ReasonWarning
			}
		}
	}
	return rec, true
}

// recordText caps the context and system message a record keeps.
const recordText = 1024

// Reasons of the allow records of verdicts that carry no decision.
const (
	ReasonWarning = "warning" // a message shown to the user
	ReasonContext = "context" // context added for Claude
)

// reportError records a gate's failure as an error event: its kind (the
// error's Go type, or "panic") and, for verbose, a panic's stack or the
// chain of wrapped errors.
func reportError(obs *observe.Request, gate string, err error) {
	if obs == nil {
		return
	}
	var p *panicError
	if errors.As(err, &p) {
		obs.Error(gate, "panic", err.Error(), string(p.stack))
		return
	}
	var chain []string
	for e := err; e != nil; e = errors.Unwrap(e) {
		chain = append(chain, fmt.Sprintf("%T: %v", e, e))
	}
	obs.Error(gate, fmt.Sprintf("%T", err), err.Error(), strings.Join(chain, "\n"))
}

// observeDecisions reports every decision record as a decision event;
// verbose adds what the session's transcript looked like then.
func observeDecisions(in *Input, records []Record) {
	obs := in.Observe
	if obs.Verbosity() == observe.Off {
		return
	}
	var detail map[string]any
	if obs.Verbose() {
		detail = transcriptContext(in)
	}
	for _, r := range records {
		obs.Decision(observe.DecisionInfo{Source: r.Source, Decision: r.Decision, Reason: r.Reason, Message: r.Message,
			Context: r.Context, SystemMessage: r.SystemMessage, DryRun: r.DryRun, DurationMS: r.DurationMS, Timestamp: r.Timestamp}, detail)
	}
}

// transcriptContext is the verbose detail of a decision: where the session
// stood when it was taken.
func transcriptContext(in *Input) map[string]any {
	t := map[string]any{}
	if s := in.Session; s != nil {
		t["transcript_path"] = s.TranscriptPath
		t["context_used"] = s.Tokens.ContextUsed
		t["context_window"] = s.Tokens.ContextWindow
		t["tool_calls"] = s.ToolCalls()
	}
	if ev := in.Event; ev != nil {
		for k, v := range map[string]string{"tool_name": ev.ToolName, "tool_use_id": ev.ToolUseID, "agent_id": ev.AgentID, "agent_type": ev.AgentType} {
			if v != "" {
				t[k] = v
			}
		}
	}
	return map[string]any{"transcript": t}
}

// failed decides what a gate's failure on event name does. When the gate's
// fail_mode is closed and the event can be blocked: a deny (PreToolUse) or
// block verdict saying the gate could not decide, which replaces whatever
// the gate returned. Otherwise (fail open): an allow record and a system
// message telling the user, every time, that the gate could not decide
// and the action went through; the gate's own verdicts still count.
// Either way the record's reason is ReasonGateError.
func failed(g Gate, name string, err error) ([]Verdict, Record) {
	rec := Record{Source: g.Name(), Decision: Allow, Reason: ReasonGateError, Error: err.Error()}
	if !g.FailClosed() || !CanBlock(name) {
		why := "its fail_mode is open, so this is allowed"
		if g.FailClosed() {
			why = "its fail_mode is closed, but " + name + " cannot be blocked"
		}
		msg := fmt.Sprintf("spcstr: %s could not decide (%v); %s (run `spcstr doctor`).", g.Name(), err, why)
		rec.SystemMessage = observe.Cut(msg, recordText)
		return []Verdict{{Source: g.Name(), SystemMessage: msg}}, rec
	}
	dec := Block
	if name == hookio.PreToolUse {
		dec = Deny
	}
	v := Verdict{Source: g.Name(), Decision: dec, Reason: ReasonGateError,
		Message: fmt.Sprintf("spcstr: %s could not decide (%v) and its fail_mode is closed.", g.Name(), err)}
	rec.Decision, rec.Message = dec, v.Message
	return []Verdict{v}, rec
}

// stamp fills in what every record of one hook call shares.
func stamp(records []Record, reqID, session string, now time.Time, hook string, dry bool) {
	for i := range records {
		records[i].RequestID, records[i].SessionID, records[i].Timestamp = reqID, session, now
		records[i].Hook = hook
		records[i].DryRun = records[i].DryRun || dry
		records[i].Enforcement = enforcement(records[i])
		if records[i].Source == "" {
			records[i].Source = "unknown"
		}
	}
}

// enforcement says what became of a record's decision (Record.Enforcement).
func enforcement(r Record) string {
	switch {
	case r.Decision == Escalated:
		return GaveWay
	case r.DryRun:
		return DryRunned
	case r.Reason == ReasonGateError && r.Decision == Allow:
		return FailedOpen
	case r.Reason == ReasonGateError:
		return FailedClosed
	}
	return Enforced
}
