package gate

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
)

// Advisor is a gate that also answers escalations: after every gate
// answered an event, the pipeline hands each Advisor the verdicts that
// escalated (a gate gave up blocking), and adds what it says to the
// answer. The escalation-advisor strategy is one.
type Advisor interface {
	Advise(ctx context.Context, in *Input, escalated []Verdict) ([]Verdict, error)
}

// Escalations returns the enforced verdicts that escalated: those the
// pipeline let through after too many blocks (Escalated), and those whose
// gate reports its own escalation with a reason "escalated:...".
func Escalations(verdicts []Verdict) []Verdict {
	var out []Verdict
	for _, v := range verdicts {
		if v.DryRun {
			continue
		}
		if v.Escalated || strings.HasPrefix(v.Reason, "escalated:") {
			out = append(out, v)
		}
	}
	return out
}

// Advise is the pipeline's last step: when some verdicts escalated, it
// runs the advisors among gates on them (each once, in order) and returns
// their verdicts and decision records (durations from clock). An advisor
// that fails, fails open: its error is a record and an entry in failures.
func Advise(ctx context.Context, gates []Gate, in *Input, verdicts []Verdict, clock func() time.Time) (out []Verdict, records []Record, failures []string) {
	escalated := Escalations(verdicts)
	if len(escalated) == 0 {
		return nil, nil, nil
	}
	for _, g := range gates {
		a, ok := g.(Advisor)
		if !ok {
			continue
		}
		t0 := clock()
		vs, err := safeAdvise(ctx, a, in, escalated)
		dur := float64(clock().Sub(t0).Microseconds()) / 1000
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s failed: %v", g.Name(), err))
			reportError(in.Observe, g.Name(), err)
			records = append(records, Record{Source: g.Name(), Decision: Allow, Reason: "advisor error, failing open", Error: err.Error(), DurationMS: dur})
		}
		for _, v := range vs {
			if v.Source == "" {
				v.Source = g.Name()
			}
			if rec, ok := record(v, g.Name(), dur); ok {
				records = append(records, rec)
			}
			out = append(out, v)
		}
	}
	return out, records, failures
}

func safeAdvise(ctx context.Context, a Advisor, in *Input, escalated []Verdict) (v []Verdict, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &panicError{value: p, stack: debug.Stack(), what: "advisor panic"}
		}
	}()
	return a.Advise(ctx, in, escalated)
}
