package strategy

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
)

type outputLocationOptions struct {
	Common `yaml:",inline"`
	// Allowed are globs of paths where new files may stay; a folder ends
	// in "/" and a bare name matches in any folder. Defaults: the orchestration's
	// .claude/.output/, modules/, docs/, README*, CLAUDE*, CHANGELOG*.
	Allowed []string `yaml:"allowed"`
	// Extensions are the kinds of file checked (default [".md"]).
	Extensions []string `yaml:"extensions"`
	// SkipAgents are subagent types that write no output files (seed
	// 002: Explore, Bash, general-purpose, claude-code-guide).
	SkipAgents []string `yaml:"skip_agents"`
}

// Default allowed output locations.
var defaultAllowed = []string{".claude/.output/", "modules/", "docs/", "README*", "CLAUDE*", "CHANGELOG*"}

type outputLocation struct{ o outputLocationOptions }

func buildOutputLocation(raw []byte) (Strategy, Common, error) {
	var o outputLocationOptions
	if err := decodeStrict(raw, &o); err != nil {
		return nil, o.Common, err
	}
	if o.Allowed == nil {
		o.Allowed = defaultAllowed
	}
	if len(o.Extensions) == 0 {
		o.Extensions = []string{".md"}
	}
	for i, e := range o.Extensions {
		if !strings.HasPrefix(e, ".") {
			o.Extensions[i] = "." + e
		}
	}
	if o.SkipAgents == nil {
		o.SkipAgents = []string{"Explore", "Bash", "general-purpose", "claude-code-guide"}
	}
	return &outputLocation{o: o}, o.Common, nil
}

func (s *outputLocation) Hooks() []Hook {
	return []Hook{{Event: hookio.SubagentStop, Blocks: true}, {Event: hookio.Stop, Blocks: true}}
}

// Evaluate checks, at SubagentStop and Stop, for new files of the checked
// kinds outside the allowed locations: untracked files (git ls-files
// --others --exclude-standard) changed since the agent started (the
// session, at Stop), or outside git the files the session created.
func (s *outputLocation) Evaluate(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	since := in.Session.CreatedAt
	who := "you"
	if in.Name == hookio.SubagentStop {
		a := in.Session.FindAgent(in.Event.AgentID)
		agent := in.Event.AgentType
		if a != nil {
			agent, since = a.Name, a.StartedAt
		}
		if agent == "" || slices.Contains(s.o.SkipAgents, agent) {
			return nil, nil // an internal helper, or an agent that writes no files
		}
		who = "this agent"
	}
	root := in.Layout.Root
	var candidates []string
	if inRepo(root) {
		lines, err := git(ctx, root, "ls-files", "--others", "--exclude-standard")
		if err != nil {
			return nil, err
		}
		candidates = lines
	} else {
		candidates = append(candidates, in.Session.Files.New...)
	}
	var wrong []string
	for _, p := range candidates {
		p = filepath.ToSlash(strings.Trim(p, `"`))
		if !slices.Contains(s.o.Extensions, strings.ToLower(filepath.Ext(p))) || matchAny(s.o.Allowed, p) ||
			strings.HasPrefix(p, ".spcstr/") || filepath.IsAbs(p) {
			continue
		}
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || fi.IsDir() || fi.ModTime().Before(since.Add(-time.Second)) {
			continue // gone, or older than this agent's run
		}
		wrong = append(wrong, p)
	}
	if len(wrong) == 0 {
		return []gate.Verdict{{Decision: gate.Allow, Reason: "clean"}}, nil
	}
	return []gate.Verdict{{
		Decision: gate.Block,
		Reason:   "misplaced-output:" + itoa(len(wrong)),
		Message: "Output files in the wrong location (spcstr output-location): " + who + " left " + listSome(wrong, 10) +
			". Move them under one of " + strings.Join(allowedFolders(s.o.Allowed), ", ") +
			" (or delete them if they should not exist), then finish.",
	}}, nil
}

func allowedFolders(allowed []string) []string {
	var out []string
	for _, a := range allowed {
		if strings.Contains(a, "/") {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return allowed
	}
	return out
}

func itoa(n int) string { return thousands(int64(n)) }
