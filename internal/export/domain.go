package export

import (
	"context"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/state"
)

// DomainSources are the Sources that read the requirement status and the
// feedback loop through the packages that own them (their read models:
// requirements.ReadSession and feedback.Load, which the dashboard reads
// too).
func DomainSources() Sources {
	return Sources{Requirements: domainRequirements, FeedbackLoop: domainFeedbackLoop}
}

// domainRequirements reads the requirement status of the session's branch
// (which may differ from the branch checked out now).
func domainRequirements(_ context.Context, l state.Layout, s *state.Session) ([]ReqStatus, error) {
	v, err := requirements.ReadSession(l.Root, s.SessionID, s.Branch)
	if err != nil {
		return nil, err
	}
	if !v.Defined {
		return nil, nil
	}
	if v.Err != nil {
		return nil, v.Err
	}
	out := make([]ReqStatus, 0, len(v.Statuses))
	for _, st := range v.Statuses {
		r := ReqStatus{
			Name: st.Name, Scope: st.Scope, Enabled: st.Enabled, Triggered: st.Triggered,
			Satisfied: st.Satisfied, SatisfiedBy: st.SatisfiedBy, Message: st.Message,
		}
		if !st.SatisfiedAt.IsZero() {
			at := st.SatisfiedAt.UTC()
			r.SatisfiedAt = &at
		}
		out = append(out, r)
	}
	return out, nil
}

// domainFeedbackLoop reads the session's feedback loop.
func domainFeedbackLoop(_ context.Context, l state.Layout, s *state.Session) (*FeedbackLoop, error) {
	st, err := feedback.Load(l, s.SessionID)
	if err != nil || st == nil {
		return nil, err
	}
	lp := st.Loop
	f := &FeedbackLoop{
		State: st.State, Active: lp.Active, Iteration: lp.Iteration, MaxIterations: st.MaxIterations,
		Loops: lp.Loops, StartedAt: timePtr(lp.StartedAt), CompletedAt: lp.CompletedAt,
	}
	for _, r := range st.Table() {
		f.Domains = append(f.Domains, FeedbackDomain{
			Name: r.Name, Files: r.Files,
			Review: phaseResult(r.Review), TestPlanning: phaseResult(r.TestPlanning), Testing: phaseResult(r.Testing),
		})
	}
	if e := st.Escalation; e != nil {
		f.Escalation = &FeedbackEscalate{Reason: e.Reason, Message: e.Message, At: e.At.UTC()}
	}
	for _, r := range lp.History {
		note := r.Note
		if len(r.Issues) > 0 {
			note = strings.TrimSpace(note + " issues: " + strings.Join(r.Issues, "; "))
		}
		if r.File != "" && !strings.Contains(note, r.File) {
			note = strings.TrimSpace(r.File + " " + note)
		}
		f.History = append(f.History, FeedbackHistItem{
			At: r.At.UTC(), Kind: r.Kind, Iteration: r.Iteration, Domain: r.Domain, Phase: r.Phase,
			Agent: r.Agent, Marker: r.Marker, Status: r.Status, Note: note,
		})
	}
	return f, nil
}

// phaseResult is a phase's status as the export writes it.
func phaseResult(p feedback.Phase) string {
	if p.Status == "" {
		return PhaseNotRun
	}
	return p.Status
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}
