package cmd

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/export"
	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/recorder"
	"github.com/dylan-gluck/spcstr/state"
)

// exportSources wires the export's requirement and feedback-loop sections
// to the packages that own those files.
func exportSources() export.Sources {
	return export.Sources{Requirements: exportRequirements, FeedbackLoop: exportFeedbackLoop}
}

// exportRequirements reads the requirement status of the session's branch
// (which may differ from the branch checked out now).
func exportRequirements(_ context.Context, l state.Layout, s *state.Session) ([]export.ReqStatus, error) {
	p, err := requirements.Open(l.Root, nil)
	if err != nil {
		return nil, err
	}
	if len(p.Config.Requirements) == 0 {
		return nil, nil
	}
	if s.Branch != "" && s.Branch != p.Loc.Branch && p.Loc.Branch != requirements.NoGitBranch {
		p.Loc.Branch = s.Branch
		p.Loc.Path = filepath.Join(p.Loc.Dir, gitrepo.BranchFileName(s.Branch)+".json")
	}
	sts, err := p.Statuses(s.SessionID)
	if err != nil {
		return nil, err
	}
	out := make([]export.ReqStatus, 0, len(sts))
	for _, st := range sts {
		r := export.ReqStatus{
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

// exportFeedbackLoop reads the session's feedback-loop.json.
func exportFeedbackLoop(_ context.Context, l state.Layout, s *state.Session) (*export.FeedbackLoop, error) {
	st, err := feedback.Load(l, s.SessionID)
	if err != nil || st == nil {
		return nil, err
	}
	lp := st.Loop
	f := &export.FeedbackLoop{
		State: st.State, Active: lp.Active, Iteration: lp.Iteration, MaxIterations: st.MaxIterations,
		Loops: lp.Loops, StartedAt: timePtr(lp.StartedAt), CompletedAt: lp.CompletedAt,
	}
	for _, d := range st.Domains {
		fd := export.FeedbackDomain{Name: d.Name, Files: d.Files}
		for _, ph := range d.Phases {
			status := ph.Status
			if status == "" {
				status = export.PhaseNotRun
			}
			switch ph.Name {
			case feedback.PhaseReview:
				fd.Review = status
			case feedback.PhaseTestPlanning:
				fd.TestPlanning = status
			case feedback.PhaseTesting:
				fd.Testing = status
			}
		}
		f.Domains = append(f.Domains, fd)
	}
	if e := st.Escalation; e != nil {
		f.Escalation = &export.FeedbackEscalate{Reason: e.Reason, Message: e.Message, At: e.At.UTC()}
	}
	for _, r := range lp.History {
		note := r.Note
		if len(r.Issues) > 0 {
			note = strings.TrimSpace(note + " issues: " + strings.Join(r.Issues, "; "))
		}
		if r.File != "" && !strings.Contains(note, r.File) {
			note = strings.TrimSpace(r.File + " " + note)
		}
		f.History = append(f.History, export.FeedbackHistItem{
			At: r.At.UTC(), Kind: r.Kind, Iteration: r.Iteration, Domain: r.Domain, Phase: r.Phase,
			Agent: r.Agent, Marker: r.Marker, Status: r.Status, Note: note,
		})
	}
	return f, nil
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

// exportHistory gives the export a long session's complete lists, replayed
// from the logs (state.json keeps only the latest entries).
func exportHistory(ctx context.Context, l state.Layout, id string) (*state.Session, error) {
	cfg, _ := config.Load(l.ConfigPath())
	return recorder.History(ctx, l, id, cfg)
}
