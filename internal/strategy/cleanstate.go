package strategy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
)

type cleanStateOptions struct {
	Common `yaml:",inline"`
	// RequireFiles must exist (relative to the project root) at Stop.
	RequireFiles []string `yaml:"require_files"`
	// CheckUncommitted blocks Stop while `git status --porcelain` lists
	// anything (default true; spcstr's own .spcstr/ never counts).
	CheckUncommitted *bool `yaml:"check_uncommitted"`
	// Ignore lists globs of paths that do not count as uncommitted.
	Ignore []string `yaml:"ignore"`
}

type cleanState struct{ o cleanStateOptions }

func buildCleanState(n ast.Node, _ *config.Config) (Strategy, Common, error) {
	var o cleanStateOptions
	if err := decodeStrict(n, &o); err != nil {
		return nil, o.Common, err
	}
	return &cleanState{o: o}, o.Common, nil
}

func (s *cleanState) Hooks() []Hook { return []Hook{{Event: hookio.Stop, Blocks: true}} }

// Evaluate runs at Stop only: it is the one hook where clean-state runs
// git.
func (s *cleanState) Evaluate(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	root := in.Layout.Root
	var issues, reasons []string
	var missing []string
	for _, f := range s.o.RequireFiles {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(f))); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			missing = append(missing, f)
		}
	}
	for _, f := range missing {
		issues = append(issues, "Missing required file: "+f)
	}
	if len(missing) > 0 {
		reasons = append(reasons, "missing-files")
	}
	if (s.o.CheckUncommitted == nil || *s.o.CheckUncommitted) && inRepo(root) {
		dirty, err := uncommitted(ctx, root, s.o.Ignore)
		if err != nil {
			return nil, err
		}
		if len(dirty) > 0 {
			issues = append(issues, "Uncommitted changes: "+listSome(dirty, 8)+". Commit them (or revert what should not stay).")
			reasons = append(reasons, "uncommitted-changes")
		}
	}
	if len(issues) == 0 {
		return []gate.Verdict{{Decision: gate.Allow, Reason: "clean"}}, nil
	}
	return []gate.Verdict{{
		Decision: gate.Block,
		Reason:   strings.Join(reasons, ","),
		Message:  fmt.Sprintf("Cannot stop, clean state required (spcstr clean-state):\n- %s", strings.Join(issues, "\n- ")),
	}}, nil
}
