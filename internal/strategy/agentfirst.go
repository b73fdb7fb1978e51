package strategy

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
)

type agentFirstOptions struct {
	Common `yaml:",inline"`
	// AgentsDir holds the agent definitions; a domain has a developer
	// agent when <agents_dir>/<domain>-developer.md exists (default
	// .claude/agents).
	AgentsDir string `yaml:"agents_dir"`
}

// agentFirst denies the main agent's edits of a domain's code when that
// domain has a developer agent: the main agent delegates, the developer
// agent edits. Domains are the feedback loop's routing.
type agentFirst struct {
	o   agentFirstOptions
	rt  routing
	dir string
}

func buildAgentFirst(n ast.Node, cfg *config.Config) (Strategy, Common, error) {
	var o agentFirstOptions
	if err := decodeStrict(n, &o); err != nil {
		return nil, o.Common, err
	}
	if o.AgentsDir == "" {
		o.AgentsDir = ".claude/agents"
	}
	if _, ok := inside("/", o.AgentsDir); !ok {
		return nil, o.Common, at(n, "agents_dir", fmt.Errorf("agents_dir %q: want a folder inside the project", o.AgentsDir))
	}
	return &agentFirst{o: o, rt: newRouting(cfg), dir: filepath.FromSlash(o.AgentsDir)}, o.Common, nil
}

func (s *agentFirst) Hooks() []Hook {
	var out []Hook
	for _, t := range []string{"Edit", "Write", "MultiEdit", "NotebookEdit"} {
		out = append(out, Hook{Event: hookio.PreToolUse, Tool: t, Blocks: true})
	}
	return out
}

// DeveloperAgent is the name of a domain's developer agent.
func DeveloperAgent(domain string) string { return domain + "-developer" }

// Evaluate costs one stat per edit of routed code: the developer agent's
// definition file.
func (s *agentFirst) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if in.Event.AgentID != "" {
		return nil, nil // a subagent (the developer agent itself) edits freely
	}
	if s.rt.err != nil {
		return nil, s.rt.err
	}
	file := editedPath(in)
	domain := s.rt.route(in.Layout.Root, file)
	if domain == "" {
		return nil, nil
	}
	agent := DeveloperAgent(domain)
	def := filepath.Join(in.Layout.Root, s.dir, agent+".md")
	if fi, err := os.Stat(def); err != nil || !fi.Mode().IsRegular() {
		return nil, nil // no developer agent for this domain
	}
	return []gate.Verdict{{
		Decision: gate.Deny,
		Reason:   "delegate:" + agent,
		Message: fmt.Sprintf("%s is %s code, and the %s agent owns it (spcstr agent-first). Do not edit it yourself: "+
			"spawn the %s agent (Agent tool, subagent_type: %q) with the change to make, and let it edit the file.",
			filepath.Base(file), domain, agent, agent, agent),
	}}, nil
}
