package gate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/dylan-gluck/spcstr/internal/hookio"
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
	var (
		all      []Verdict
		records  []Record
		failures []string
	)
	for _, g := range gates {
		t0 := clock()
		verdicts, err := evaluate(ctx, g, in)
		dur := float64(clock().Sub(t0).Microseconds()) / 1000
		if err != nil {
			msg := fmt.Sprintf("%s failed: %v", g.Name(), err)
			s.Errors = append(s.Errors, state.Error{Timestamp: in.Now, Type: state.ErrorSpcstr, Message: msg})
			failures = append(failures, msg)
			closed, rec := failed(g, in.Name, err)
			if closed != nil {
				verdicts = closed
			}
			rec.DurationMS = dur
			records = append(records, rec)
		}
		if dry {
			for i := range verdicts {
				verdicts[i].DryRun = true
			}
		}
		verdicts = escalate(s, in.Name, g.Name(), verdicts)
		for i, v := range verdicts {
			if v.Source == "" {
				v.Source = g.Name() // a verdict speaks for its gate unless it names a strategy
				verdicts[i].Source = v.Source
			}
			if v.Decision != "" && err == nil {
				records = append(records, Record{Source: v.Source, Decision: v.Decision, Reason: v.Reason, Message: v.Message, DurationMS: dur, DryRun: v.DryRun})
			}
		}
		all = append(all, verdicts...)
	}
	// Escalations go to the advisors (the escalation-advisor strategy).
	advice, adviceRecs, adviceFailures := Advise(ctx, gates, in, all, clock)
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
	stamp(records, requestID(), s.SessionID, in.Now, in.Name, dry)
	// Dry-run (global, or a verdict's own): log everything, enforce
	// nothing: drop the decision, and tell the user what would have been
	// done (dryrun.go).
	for i := range all {
		if all[i].DryRun && (all[i].Decision == Deny || all[i].Decision == Block) {
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
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return g.Evaluate(ctx, in)
}

// failed decides what a gate's failure on event name does: nothing (fail
// open: an allow record; whatever verdicts the gate returned with its error
// still count) or, when the gate's fail_mode is closed and the event can be
// blocked, a deny (PreToolUse) or block verdict that replaces them.
func failed(g Gate, name string, err error) ([]Verdict, Record) {
	rec := Record{Source: g.Name(), Decision: Allow, Reason: "gate error, failing open", Error: err.Error()}
	if !g.FailClosed() || !CanBlock(name) {
		return nil, rec
	}
	dec := Block
	if name == hookio.PreToolUse {
		dec = Deny
	}
	v := Verdict{Source: g.Name(), Decision: dec, Reason: "gate error, fail_mode closed",
		Message: fmt.Sprintf("spcstr: %s could not decide (%v) and its fail_mode is closed.", g.Name(), err)}
	rec.Decision, rec.Reason = dec, v.Reason
	return []Verdict{v}, rec
}

// stamp fills in what every record of one hook call shares.
func stamp(records []Record, reqID, session string, now time.Time, hook string, dry bool) {
	for i := range records {
		records[i].RequestID, records[i].SessionID, records[i].Timestamp = reqID, session, now
		records[i].Hook = hook
		records[i].DryRun = records[i].DryRun || dry
		if records[i].Source == "" {
			records[i].Source = "unknown"
		}
	}
}

// requestID names one hook invocation in decisions.json. math/rand/v2 is
// seeded from the OS per process; crypto/rand would add its package init to
// every hook call for no benefit here.
func requestID() string {
	return fmt.Sprintf("%016x", rand.Uint64())
}
