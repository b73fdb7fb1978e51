package export

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/dylan-gluck/spcstr/state"
)

// Sources supply the sections that other packages own (DomainSources reads
// them through those packages; tests substitute their own);
// a nil func falls back to a look at whether the section's files exist, so
// that a project without requirements or feedback loop says so plainly.
type Sources struct {
	// Requirements returns the requirement status of session s (its branch
	// is s.Branch, its project l.Root). Return nil, nil when no
	// requirements are configured.
	Requirements func(ctx context.Context, l state.Layout, s *state.Session) ([]ReqStatus, error)
	// FeedbackLoop returns the session's feedback loop, with history.
	// Return nil, nil when the session has none.
	FeedbackLoop func(ctx context.Context, l state.Layout, s *state.Session) (*FeedbackLoop, error)
}

// requirementConfigs lists the requirement config files of a project, in
// the cascade's order (docs/layout.md): global, project, local.
func requirementConfigs(root, home string) []string {
	var paths []string
	if home != "" {
		paths = append(paths, filepath.Join(home, ".claude", "requirements.yaml"))
	}
	return append(paths,
		filepath.Join(root, ".claude", "requirements.yaml"),
		filepath.Join(root, ".claude", "requirements.local.yaml"))
}

func anyExists(paths ...string) bool {
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

func (b *builder) requirements(ctx context.Context, s *state.Session) Requirements {
	r := Requirements{Branch: s.Branch, Items: []ReqStatus{}}
	if b.opt.Sources.Requirements == nil {
		if anyExists(requirementConfigs(b.layout.Root, b.opt.Home)...) {
			r.Status = StatusUnavailable
		} else {
			r.Status = StatusNotConfigured
		}
		return r
	}
	items, err := b.opt.Sources.Requirements(ctx, b.layout, s)
	switch {
	case err != nil:
		r.Status, r.Error = StatusError, err.Error()
	case items == nil:
		r.Status = StatusNotConfigured
	default:
		r.Status, r.Items = StatusOK, items
	}
	return r
}

func (b *builder) feedbackLoop(ctx context.Context, s *state.Session) FeedbackLoop {
	f := FeedbackLoop{Domains: []FeedbackDomain{}, History: []FeedbackHistItem{}}
	if b.opt.Sources.FeedbackLoop == nil {
		path, err := b.layout.FeedbackPath(s.SessionID)
		if _, statErr := os.Stat(path); err == nil && !errors.Is(statErr, os.ErrNotExist) {
			f.Status = StatusUnavailable
		} else {
			f.Status = StatusNotEnabled
		}
		return f
	}
	loop, err := b.opt.Sources.FeedbackLoop(ctx, b.layout, s)
	switch {
	case err != nil:
		f.Status, f.Error = StatusError, err.Error()
	case loop == nil:
		f.Status = StatusNotEnabled
	default:
		f = *loop
		f.Status, f.Error = StatusOK, ""
		if f.Domains == nil {
			f.Domains = []FeedbackDomain{}
		}
		for i := range f.Domains {
			if f.Domains[i].Files == nil {
				f.Domains[i].Files = []string{}
			}
		}
		if f.History == nil {
			f.History = []FeedbackHistItem{}
		}
	}
	return f
}
