package gate

import (
	"context"
	"fmt"
	"strings"
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

// advise runs the advisors among gates on the escalated verdicts. A
// failing advisor fails open: its error is returned with the others'
// verdicts.
func advise(ctx context.Context, gates []Gate, in *Input, escalated []Verdict) (out []Verdict, failed []error) {
	if len(escalated) == 0 {
		return nil, nil
	}
	for _, g := range gates {
		a, ok := g.(Advisor)
		if !ok {
			continue
		}
		vs, err := safeAdvise(ctx, a, in, escalated)
		if err != nil {
			failed = append(failed, err)
		}
		for i := range vs {
			if vs[i].Source == "" {
				vs[i].Source = g.Name()
			}
		}
		out = append(out, vs...)
	}
	return out, failed
}

func safeAdvise(ctx context.Context, a Advisor, in *Input, escalated []Verdict) (v []Verdict, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("advisor panic: %v", p)
		}
	}()
	return a.Advise(ctx, in, escalated)
}
