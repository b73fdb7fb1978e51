package gate

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"
)

// Follower is a gate that also speaks once the event's answer is known,
// and only when that answer lets the event through: a prompt that suggests
// something once per session (the requirements framework's
// /session-reflect at an allowed Stop) must neither show on a Stop another
// gate blocks nor spend its one chance there. Run calls it after every gate
// and advisor answered; a decision in what it returns is dropped (the
// answer is already decided), its messages and context join the answer.
type Follower interface {
	Follow(ctx context.Context, in *Input) ([]Verdict, error)
}

// holds reports whether verdicts hold the event: an enforced deny or block.
// An escalated block gave way and a dry-run one is not enforced.
func holds(verdicts []Verdict) bool {
	for _, v := range verdicts {
		if (v.Decision == Deny || v.Decision == Block) && !v.DryRun {
			return true
		}
	}
	return false
}

// follow runs the followers among gates on an event that goes through;
// it returns their verdicts, records and failures as Advise does (a
// follower that fails, fails open).
func follow(ctx context.Context, gates []Gate, in *Input, verdicts []Verdict, clock func() time.Time) (out []Verdict, records []Record, failures []string) {
	if holds(verdicts) {
		return nil, nil, nil
	}
	for _, g := range gates {
		f, ok := g.(Follower)
		if !ok {
			continue
		}
		t0 := clock()
		vs, err := safeFollow(ctx, f, in)
		dur := float64(clock().Sub(t0).Microseconds()) / 1000
		if err != nil && isSideWrite(err) {
			err = fmt.Errorf("%s: %w", g.Name(), err)
			failures = append(failures, err.Error())
			reportError(in.Observe, g.Name(), err)
			err = nil
		}
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s failed: %v", g.Name(), err))
			reportError(in.Observe, g.Name(), err)
			records = append(records, Record{Source: g.Name(), Decision: Allow, Reason: ReasonGateError, Error: err.Error(), DurationMS: dur})
		}
		for _, v := range vs {
			v.Decision, v.Reason, v.Message, v.Grant = "", "", "", false
			if v.Source == "" {
				v.Source = g.Name()
			}
			if rec, ok := record(v, g.Name(), dur); ok {
				records = append(records, rec)
				out = append(out, v)
			}
		}
	}
	return out, records, failures
}

func safeFollow(ctx context.Context, f Follower, in *Input) (v []Verdict, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &panicError{value: p, stack: debug.Stack(), what: "follower panic"}
		}
	}()
	return f.Follow(ctx, in)
}
