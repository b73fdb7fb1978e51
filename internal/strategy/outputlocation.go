package strategy

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

type outputLocationOptions struct {
	Common `yaml:",inline"`
	// Allowed are globs of paths where new files may stay; a folder ends
	// in "/" and a bare name matches in any folder. Defaults:
	// .claude/.output/, modules/, docs/, README*, CLAUDE*, CHANGELOG*.
	Allowed []string `yaml:"allowed"`
	// Extensions are the kinds of file checked (default [".md"]).
	Extensions []string `yaml:"extensions"`
	// SkipAgents are subagent types that write no output files (default:
	// Explore, Bash, general-purpose, claude-code-guide).
	SkipAgents []string `yaml:"skip_agents"`
	// ComplianceSkill names the skill that tells agents where their output
	// goes ("persisting-agent-outputs"). Set, it turns on the other two
	// layers: a warning after an Agent call whose answer and transcript
	// show no use of the skill, and at SubagentStop the compliance check of
	// every misplaced file, with the revert plan of the agent's code
	// changes.
	ComplianceSkill string `yaml:"compliance_skill"`
}

// Default allowed output locations.
var defaultAllowed = []string{".claude/.output/", "modules/", "docs/", "README*", "CLAUDE*", "CHANGELOG*"}

// outputLocation keeps agents' output files where they belong, in three
// layers: a warning after the Agent call (with compliance_skill), a block
// at SubagentStop, and the same check at Stop (defense in depth).
type outputLocation struct{ o outputLocationOptions }

func buildOutputLocation(n ast.Node, _ *config.Config) (Strategy, Common, error) {
	var o outputLocationOptions
	if err := decodeStrict(n, &o); err != nil {
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
	o.ComplianceSkill = strings.TrimPrefix(strings.TrimSpace(o.ComplianceSkill), "/")
	return &outputLocation{o: o}, o.Common, nil
}

func (s *outputLocation) Hooks() []Hook {
	hooks := []Hook{{Event: hookio.SubagentStop, Blocks: true}, {Event: hookio.Stop, Blocks: true}}
	if s.o.ComplianceSkill != "" {
		hooks = append(hooks,
			Hook{Event: hookio.PostToolUse, Tool: "Agent"}, Hook{Event: hookio.PostToolUse, Tool: "Task"},
			Hook{Event: hookio.PreToolUse, Tool: "Agent"}, Hook{Event: hookio.PreToolUse, Tool: "Task"},
			Hook{Event: hookio.SubagentStart})
		for _, t := range editTools {
			hooks = append(hooks, Hook{Event: hookio.PostToolUse, Tool: t})
		}
	}
	return hooks
}

func (s *outputLocation) Evaluate(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	switch in.Name {
	case hookio.PreToolUse, hookio.SubagentStart:
		return nil, s.recordBefore(ctx, in)
	case hookio.PostToolUse:
		if slices.Contains(editTools, in.Event.ToolName) {
			return nil, s.recordWrite(ctx, in)
		}
		return s.layer1(in), nil
	case hookio.SubagentStop, hookio.Stop:
		return s.check(ctx, in)
	}
	return nil, nil
}

// skipped reports an agent that writes no output files, or an internal
// helper without a type.
func (s *outputLocation) skipped(agentType string) bool {
	return agentType == "" || slices.Contains(s.o.SkipAgents, agentType)
}

// layer1 warns, after a foreground Agent call, when neither the agent's
// answer nor its transcript shows the compliance skill.
func (s *outputLocation) layer1(in *gate.Input) []gate.Verdict {
	f := in.Event.Input()
	if s.skipped(f.SubagentType) {
		return nil
	}
	var resp struct {
		Status  string `json:"status"`
		AgentID string `json:"agentId"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(in.Event.ToolResponse, &resp)
	if resp.Status == "async_launched" {
		return nil // no answer yet: SubagentStop checks the agent
	}
	skill := s.o.ComplianceSkill
	for _, c := range resp.Content {
		if strings.Contains(c.Text, skill) {
			return nil
		}
	}
	if resp.AgentID != "" && in.Event.TranscriptPath != "" {
		p := agentTranscript(in.Event.TranscriptPath, in.Event.SessionID, resp.AgentID)
		if data, err := readRegular(p, maxTranscriptBytes); err == nil && strings.Contains(string(data), skill) {
			return nil
		}
	}
	return []gate.Verdict{{Decision: gate.Allow, Reason: "skill-not-used:" + f.SubagentType,
		Context: "Warning (spcstr output-location): the " + f.SubagentType + " agent's answer and transcript show no use of the " +
			skill + " skill, so its output files may be in the wrong place and it may have skipped its other mandatory skills. " +
			"Check where it wrote its output before relying on it."}}
}

// check is layers 2 and 3: new files of the checked kinds outside the
// allowed locations, since the agent started (SubagentStop) or the session
// started (Stop). In git: untracked files (git ls-files --others
// --exclude-standard) of the project's work tree, of the agent's own work
// tree and, from a linked worktree, of the main checkout (the parent of
// the common git dir), where an agent in a worktree may leak files.
// Outside git: the files the session created.
func (s *outputLocation) check(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	since := in.Session.CreatedAt
	var agent *state.Agent
	if in.Name == hookio.SubagentStop {
		agent = in.Session.FindAgent(in.Event.AgentID)
		typ := in.Event.AgentType
		if agent != nil {
			typ, since = firstNonEmpty(agent.AgentType, agent.Name), agent.StartedAt
		}
		if s.skipped(typ) {
			return nil, nil
		}
	}
	root := in.Layout.Root
	trees := s.workTrees(in)
	var wrong []misplaced
	untracked := map[string]bool{} // absolute paths
	if len(trees) == 0 {
		for _, p := range in.Session.Files.New {
			wrong = s.consider(wrong, root, root, p, since)
		}
	}
	for _, top := range trees {
		lines, err := gitrepo.Run(ctx, top, "ls-files", "--others", "--exclude-standard")
		if err != nil {
			return nil, err
		}
		for _, p := range lines {
			p = filepath.ToSlash(strings.Trim(p, `"`))
			untracked[filepath.Join(top, filepath.FromSlash(p))] = true
			wrong = s.consider(wrong, root, top, p, since)
		}
	}
	if len(wrong) == 0 {
		return []gate.Verdict{{Decision: gate.Allow, Reason: "clean"}}, nil
	}
	if s.o.ComplianceSkill != "" && in.Name == hookio.SubagentStop {
		var invalid, move []misplaced
		for _, w := range wrong {
			data, err := readRegular(w.abs, maxOutputBytes)
			if err == nil && strings.Contains(string(data), s.o.ComplianceSkill) {
				move = append(move, w)
			} else {
				invalid = append(invalid, w)
			}
		}
		if len(invalid) > 0 {
			plan, err := s.revertPlan(ctx, in, agent, wrong, untracked)
			if err != nil {
				return nil, err
			}
			return []gate.Verdict{{Decision: gate.Block, Reason: "skill-compliance-failure:" + itoa(len(invalid)),
				Message: s.complianceMessage(invalid, move, plan)}}, nil
		}
	}
	who := "you"
	if in.Name == hookio.SubagentStop {
		who = "this agent"
	}
	names := make([]string, 0, len(wrong))
	for _, w := range wrong {
		names = append(names, w.show)
	}
	return []gate.Verdict{{
		Decision: gate.Block,
		Reason:   "misplaced-output:" + itoa(len(wrong)),
		Message: "Output files in the wrong location (spcstr output-location): " + who + " left " + listSome(names, 10) +
			". Move them under one of " + strings.Join(allowedFolders(s.o.Allowed), ", ") +
			" (or delete them if they should not exist), then finish.",
	}}, nil
}

// misplaced is one file in the wrong location.
type misplaced struct {
	abs  string
	show string // relative to the project root, or absolute outside it
}

// consider adds p (relative to work tree top) when it is a file of a
// checked kind, outside the allowed locations, changed since since.
func (s *outputLocation) consider(list []misplaced, root, top, p string, since time.Time) []misplaced {
	p = filepath.ToSlash(strings.Trim(p, `"`))
	if !slices.Contains(s.o.Extensions, strings.ToLower(filepath.Ext(p))) || matchAny(s.o.Allowed, p) ||
		strings.HasPrefix(p, state.DirName+"/") || filepath.IsAbs(p) {
		return list
	}
	abs := filepath.Join(top, filepath.FromSlash(p))
	fi, err := os.Stat(abs)
	if err != nil || !fi.Mode().IsRegular() || fi.ModTime().Before(since.Add(-time.Second)) {
		return list // gone, or older than this agent's run
	}
	show := abs
	if r, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(r, "..") {
		show = filepath.ToSlash(r)
	}
	for _, m := range list {
		if m.abs == abs {
			return list
		}
	}
	return append(list, misplaced{abs: abs, show: show})
}

// workTrees lists the git work trees to check: the project's, the agent's
// (its cwd may be a worktree of its own) and, for each linked worktree,
// the main checkout. None outside git.
func (s *outputLocation) workTrees(in *gate.Input) []string {
	var tops []string
	add := func(dir string) {
		if dir == "" {
			return
		}
		repo, ok := gitrepo.Find(dir)
		if !ok {
			return
		}
		for _, t := range []string{repo.Top, mainCheckout(repo)} {
			if t != "" && !slices.Contains(tops, t) {
				tops = append(tops, t)
			}
		}
	}
	add(in.Layout.Root)
	if len(tops) > 0 {
		add(in.Event.Cwd)
	}
	return tops
}

// mainCheckout is the main work tree of a linked worktree: the folder
// holding the common git dir (what `git rev-parse --git-common-dir`
// prints), or "" for a main checkout or a bare repository.
func mainCheckout(r gitrepo.Repo) string {
	if r.GitDir == r.CommonDir || filepath.Base(r.CommonDir) != ".git" {
		return ""
	}
	top := filepath.Dir(r.CommonDir)
	if fi, err := os.Stat(top); err != nil || !fi.IsDir() {
		return ""
	}
	return top
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
