package strategy

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

type qualityGateOptions struct {
	Common `yaml:",inline"`
}

// qualityGate is the feedback loop's safety net ("defense in depth"):
// when the loop is off or kept no state, code of a routed domain changed
// and no reviewer of that domain ran, it blocks one Stop with what to run.
type qualityGate struct {
	o  qualityGateOptions
	rt routing
}

func buildQualityGate(n ast.Node, cfg *config.Config) (Strategy, Common, error) {
	var o qualityGateOptions
	if err := decodeStrict(n, &o); err != nil {
		return nil, o.Common, err
	}
	return &qualityGate{o: o, rt: newRouting(cfg)}, o.Common, nil
}

func (s *qualityGate) Hooks() []Hook { return []Hook{{Event: hookio.Stop, Blocks: true}} }

// qgState is quality-gate's namespace: the change it last blocked for, so
// that it blocks once per change, not on every Stop.
type qgState struct {
	Blocked string `json:"blocked,omitempty"`
}

func (s *qualityGate) Evaluate(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if s.rt.err != nil {
		return nil, s.rt.err
	}
	if s.rt.cfg.Enabled {
		st, err := feedback.Load(in.Layout, in.Event.SessionID)
		if err != nil {
			return nil, err
		}
		if st != nil {
			return nil, nil // the loop tracks this session: it enforces review and tests
		}
	}
	files := map[string][]string{}
	var domains []string
	sess := in.Session
	for _, list := range [][]string{sess.Files.New, sess.Files.Edited} {
		for _, f := range list {
			d := s.rt.route(in.Layout.Root, f)
			if d == "" || slices.Contains(files[d], f) {
				continue
			}
			if _, ok := files[d]; !ok {
				domains = append(domains, d)
			}
			files[d] = append(files[d], f)
		}
	}
	var unreviewed []string
	for _, d := range domains {
		if !reviewerRan(sess, s.rt.cfg.Role(d, feedback.PhaseReview)) {
			unreviewed = append(unreviewed, d)
		}
	}
	if len(unreviewed) == 0 {
		if len(domains) == 0 {
			return nil, nil
		}
		return []gate.Verdict{{Decision: gate.Allow, Reason: "reviewed"}}, nil
	}
	key := ""
	for _, d := range unreviewed {
		key += fmt.Sprintf("%s=%d;", d, len(files[d]))
	}
	block := false
	var st qgState
	if err := updateNS(ctx, in, NameQualityGate, &st, func() bool {
		if st.Blocked == key {
			return false
		}
		st.Blocked, block = key, true
		return true
	}); err != nil {
		return nil, err
	}
	if !block {
		return []gate.Verdict{{Decision: gate.Allow, Reason: "already-blocked:" + strings.Join(unreviewed, ",")}}, nil
	}
	var lines []string
	for _, d := range unreviewed {
		reviewer := s.rt.cfg.Role(d, feedback.PhaseReview).First()
		tester := s.rt.cfg.Role(d, feedback.PhaseTesting).First()
		lines = append(lines, fmt.Sprintf("- %s (%s): run the %s agent to review it, then %s to test it.",
			d, listSome(files[d], 5), reviewer, tester))
	}
	return []gate.Verdict{{
		Decision: gate.Block,
		Reason:   "unreviewed:" + strings.Join(unreviewed, ","),
		Message: "Code changed in this session and no reviewer looked at it (spcstr quality-gate):\n" + strings.Join(lines, "\n") +
			"\nIf the change truly needs no review, say why and finish; this check blocks only once per change.",
	}}, nil
}

// reviewerRan reports whether one of the reviewer agents ran (or runs) in
// the session.
func reviewerRan(s *state.Session, reviewers feedback.Names) bool {
	for i := range s.AgentsHistory {
		a := &s.AgentsHistory[i]
		if reviewers.Has(a.Name) || reviewers.Has(a.AgentType) {
			return true
		}
	}
	return false
}
