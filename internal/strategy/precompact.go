package strategy

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
)

type precompactOptions struct {
	Common `yaml:",inline"`
	// Manifests are globs (relative to the project root) of orchestration
	// manifests; the most recently changed one gives current_phase.
	// Default: .claude/.output/*/MANIFEST.yaml and
	// .claude/.output/*/*/MANIFEST.yaml.
	Manifests []string `yaml:"manifests"`
}

// maxManifestBytes bounds the manifest read.
const maxManifestBytes = 256 << 10

// precompactContext keeps the workflow state across a compaction: at
// PreCompact it writes down the feedback loop's phase per domain, the
// unmet requirements and the orchestration's current phase, and at the
// SessionStart that follows the compaction it gives them back as context
// (read again then, falling back to what PreCompact saw).
type precompactContext struct{ o precompactOptions }

func buildPrecompactContext(n ast.Node, _ *config.Config) (Strategy, Common, error) {
	var o precompactOptions
	if err := decodeStrict(n, &o); err != nil {
		return nil, o.Common, err
	}
	if o.Manifests == nil {
		o.Manifests = []string{".claude/.output/*/MANIFEST.yaml", ".claude/.output/*/*/MANIFEST.yaml"}
	}
	for _, m := range o.Manifests {
		if _, ok := inside("/", m); !ok {
			return nil, o.Common, at(n, "manifests", fmt.Errorf("manifests: %q: want a glob inside the project", m))
		}
		if _, err := filepath.Match(m, ""); err != nil {
			return nil, o.Common, at(n, "manifests", fmt.Errorf("manifests: %q: %w", m, err))
		}
	}
	return &precompactContext{o: o}, o.Common, nil
}

func (s *precompactContext) Hooks() []Hook {
	return []Hook{{Event: hookio.PreCompact}, {Event: hookio.SessionStart}}
}

// pcState is precompact-context's namespace.
type pcState struct {
	Saved string `json:"saved,omitempty"`
}

func (s *precompactContext) Evaluate(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	switch in.Name {
	case hookio.PreCompact:
		text := s.snapshot(in)
		var st pcState
		return nil, updateNS(ctx, in, NamePrecompactContext, &st, func() bool {
			if st.Saved == text {
				return false
			}
			st.Saved = text
			return true
		})
	case hookio.SessionStart:
		if in.Event.Source != "compact" {
			return nil, nil
		}
		text := s.snapshot(in)
		if text == "" {
			var st pcState
			if err := readNS(in, NamePrecompactContext, &st); err != nil {
				return nil, err
			}
			text = st.Saved
		}
		if text == "" {
			return nil, nil
		}
		return []gate.Verdict{{Context: "<workflow-state>\nThe context was compacted. The workflow state before it:\n" + text + "\n</workflow-state>"}}, nil
	}
	return nil, nil
}

// snapshot describes the workflow state, one line per part, "" when there
// is none.
func (s *precompactContext) snapshot(in *gate.Input) string {
	var lines []string
	if st, err := feedback.Load(in.Layout, in.Event.SessionID); err == nil && st != nil && st.State != feedback.StateIdle {
		line := fmt.Sprintf("- Feedback loop (%s), iteration %d/%d:", st.State, max(st.Iteration, 1), st.MaxIterations)
		for _, d := range st.Domains {
			var ph []string
			for _, p := range d.Phases {
				ph = append(ph, strings.ReplaceAll(p.Name, "_", " ")+" "+strings.ToLower(firstNonEmpty(p.Status, "not run")))
			}
			line += fmt.Sprintf(" %s: %s;", d.Name, strings.Join(ph, ", "))
		}
		lines = append(lines, strings.TrimSuffix(line, ";"))
	}
	if unmet := unmetRequirements(in); len(unmet) > 0 {
		lines = append(lines, "- Unmet requirements: "+strings.Join(unmet, ", "))
	}
	if rel, phase := s.currentPhase(in.Layout.Root); phase != "" {
		lines = append(lines, fmt.Sprintf("- Orchestration %s: current_phase %s", rel, phase))
	}
	return strings.Join(lines, "\n")
}

// currentPhase reads current_phase from the most recently changed
// manifest.
func (s *precompactContext) currentPhase(root string) (rel, phase string) {
	var newest string
	var newestAt int64
	for _, g := range s.o.Manifests {
		matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(g)))
		for _, m := range matches {
			fi, err := os.Stat(m)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if t := fi.ModTime().UnixNano(); newest == "" || t > newestAt {
				newest, newestAt = m, t
			}
		}
	}
	if newest == "" {
		return "", ""
	}
	phase = manifestPhase(root, newest)
	if phase == "" {
		return "", ""
	}
	r, _ := filepath.Rel(root, newest)
	return filepath.ToSlash(r), phase
}
