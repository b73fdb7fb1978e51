package strategy

import (
	"context"
	"fmt"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// fallbackHooks are the hooks of a strategy whose options did not decode:
// a command strategy's `hooks:` as far as they parse, a built-in's default
// hooks, else Stop, SubagentStop and every PreToolUse.
func fallbackHooks(b builtin, n ast.Node, cfg *config.Config) ([]Hook, hookio.Matcher) {
	var hooks []Hook
	var matcher hookio.Matcher
	if b.description == "" || isCommand(n) {
		var o struct {
			Hooks   []string `yaml:"hooks"`
			Matcher string   `yaml:"matcher"`
		}
		_ = yaml.NodeToValue(n, &o)
		// A matcher that does not compile: the closed gate covers every
		// tool of its hooks.
		matcher, _ = hookio.CompileMatcher(o.Matcher)
		for _, h := range o.Hooks {
			if hk, err := ParseHook(h); err == nil {
				hk.Blocks = gate.CanBlock(hk.Event)
				hooks = append(hooks, hk)
			}
		}
	} else if s, _, err := b.build(nil, cfg); err == nil {
		hooks = s.Hooks()
	}
	if len(hooks) == 0 {
		hooks = []Hook{{Event: hookio.PreToolUse, Tool: "*", Blocks: true}, {Event: hookio.Stop, Blocks: true}, {Event: hookio.SubagentStop, Blocks: true}}
	}
	return hooks, matcher
}

// brokenGate stands in for a strategy with fail_mode: closed whose
// configuration cannot be used: on its hooks, it could not decide.
type brokenGate struct {
	name    string
	hooks   []Hook
	matcher hookio.Matcher
	err     error
}

func (g *brokenGate) Name() string     { return Source(g.name) }
func (g *brokenGate) FailClosed() bool { return true }

// Declares implements gate.Declarer.
func (g *brokenGate) Declares(in *gate.Input) bool {
	tool := ""
	if isToolEvent(in.Name) && in.Event != nil {
		tool = in.Event.ToolName
	}
	for _, h := range g.hooks {
		if h.Blocks && h.Matches(in.Name, tool) {
			return !isToolEvent(in.Name) || g.matcher.Match(tool)
		}
	}
	return false
}

func (g *brokenGate) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if !g.Declares(in) {
		return nil, nil
	}
	return nil, fmt.Errorf("its configuration is unusable: %w", g.err)
}
