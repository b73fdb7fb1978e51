package strategy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/state"
)

// Bounds of what the compliance check reads.
const (
	maxOutputBytes     = 256 << 10 // a misplaced output file, searched for the skill
	maxTranscriptBytes = 64 << 20  // an agent transcript
	maxDirtyPaths      = 5000      // paths remembered per agent start
	maxTranscriptLine  = 16 << 20  // one JSONL line
)

// olState is output-location's namespace: the uncommitted paths (absolute)
// when each agent started, keyed "agent:<agent_id>" or, before the agent
// has an id, "tool:<tool_use_id>"; and the files each agent wrote, as
// spcstr recorded them at the PostToolUse of its Edit, Write, MultiEdit and
// NotebookEdit calls, keyed "agent:<agent_id>".
type olState struct {
	Before map[string]dirtySnapshot `json:"before,omitempty"`
	Wrote  map[string]agentWrites   `json:"wrote,omitempty"`
}

// agentWrites are the files (absolute) one agent wrote, in order; At is the
// latest write.
type agentWrites struct {
	At    time.Time `json:"at"`
	Files []string  `json:"files"`
}

// editTools are the tools whose calls change a file named in tool_input.
var editTools = []string{"Edit", "Write", "MultiEdit", "NotebookEdit"}

// recordWrite remembers, at the PostToolUse of a subagent's file edit, the
// file it changed. This is what the revert plan trusts: an agent's
// transcript may not yet hold its last call when SubagentStop reads it
// (Claude Code writes the transcript asynchronously), whereas the
// PostToolUse hook of every call has returned before the agent can stop.
func (s *outputLocation) recordWrite(ctx context.Context, in *gate.Input) error {
	ev := in.Event
	if ev.AgentID == "" || (ev.AgentType != "" && s.skipped(ev.AgentType)) {
		return nil
	}
	f := ev.Input()
	p := firstNonEmpty(f.FilePath, f.NotebookPath)
	if p == "" {
		return nil
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(firstNonEmpty(ev.Cwd, in.Layout.Root), p)
	}
	p = filepath.Clean(p)
	key := "agent:" + ev.AgentID
	var st olState
	return updateNS(ctx, in, NameOutputLocation, &st, func() bool {
		if st.Wrote == nil {
			st.Wrote = map[string]agentWrites{}
		}
		for k, v := range st.Wrote {
			if in.Now.Sub(v.At) > 24*time.Hour {
				delete(st.Wrote, k) // an agent that never stopped
			}
		}
		w := st.Wrote[key]
		if slices.Contains(w.Files, p) || len(w.Files) >= maxDirtyPaths {
			return false // known already (or the bound is reached)
		}
		st.Wrote[key] = agentWrites{At: in.Now, Files: append(w.Files, p)}
		return true
	})
}

type dirtySnapshot struct {
	At    time.Time `json:"at"`
	Dirty []string  `json:"dirty"`
}

// recordBefore remembers what was uncommitted when an agent starts: at
// PreToolUse of Agent/Task (keyed by the tool call) and at SubagentStart
// (keyed by the agent, reusing the tool call's snapshot when the agent
// came from one). This is the one place the strategy runs git status, once
// per agent start.
func (s *outputLocation) recordBefore(ctx context.Context, in *gate.Input) error {
	root := in.Layout.Root
	repo, ok := gitrepo.Find(root)
	if !ok {
		return nil
	}
	var key, fromTool string
	switch in.Name {
	case hookio.PreToolUse:
		if in.Event.AgentID != "" || in.Event.ToolUseID == "" || s.skipped(in.Event.Input().SubagentType) {
			return nil
		}
		key = "tool:" + in.Event.ToolUseID
	case hookio.SubagentStart:
		if in.Event.AgentID == "" || s.skipped(in.Event.AgentType) {
			return nil
		}
		key = "agent:" + in.Event.AgentID
		if a := in.Session.FindAgent(in.Event.AgentID); a != nil && a.ToolUseID != "" {
			fromTool = "tool:" + a.ToolUseID
		}
	}
	var st olState
	if fromTool != "" {
		if err := readNS(in, NameOutputLocation, &st); err != nil {
			return err
		}
		if snap, ok := st.Before[fromTool]; ok {
			return updateNS(ctx, in, NameOutputLocation, &st, func() bool {
				st.Before[key] = snap
				delete(st.Before, fromTool)
				return true
			})
		}
	}
	dirty, err := dirtyPaths(ctx, repo.Top)
	if err != nil {
		return err
	}
	return updateNS(ctx, in, NameOutputLocation, &st, func() bool {
		if st.Before == nil {
			st.Before = map[string]dirtySnapshot{}
		}
		for k, v := range st.Before {
			if in.Now.Sub(v.At) > 24*time.Hour {
				delete(st.Before, k) // an agent that never stopped
			}
		}
		st.Before[key] = dirtySnapshot{At: in.Now, Dirty: dirty}
		return true
	})
}

// dirtyPaths lists the absolute paths `git status --porcelain -uall`
// reports in work tree top, spcstr's own folder aside.
func dirtyPaths(ctx context.Context, top string) ([]string, error) {
	lines, err := gitrepo.Run(ctx, top, "status", "--porcelain", "-uall")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range gitrepo.StatusPaths(lines) {
		if spcstrPath(p) {
			continue
		}
		out = append(out, filepath.Join(top, filepath.FromSlash(p)))
		if len(out) == maxDirtyPaths {
			break
		}
	}
	return out, nil
}

// revertPlan sorts the code files the agent changed.
type revertPlan struct {
	// Checkout are tracked files only this agent changed: git checkout.
	Checkout []string
	// Remove are files this agent created: rm.
	Remove []string
	// Manual are files that had uncommitted changes before the agent
	// started (or whose state then is unknown).
	Manual []string
	// Unknown is set when nothing recorded the state before the agent.
	Unknown bool
}

// revertPlan sorts the code files the agent changed. outputs are every
// misplaced output file (to delete or to move): they belong to those
// sections of the message alone, so that a file is in exactly one.
func (s *outputLocation) revertPlan(ctx context.Context, in *gate.Input, agent *state.Agent, outputs []misplaced, untracked map[string]bool) (revertPlan, error) {
	var plan revertPlan
	tp := in.Event.AgentTranscriptPath
	if tp == "" && in.Event.TranscriptPath != "" && in.Event.AgentID != "" {
		tp = agentTranscript(in.Event.TranscriptPath, in.Event.SessionID, in.Event.AgentID)
	}
	var st olState
	if err := readNS(in, NameOutputLocation, &st); err != nil {
		return plan, err
	}
	// What spcstr recorded first; the transcript only adds to it (calls
	// made before spcstr was registered, or whose hook failed).
	changed := st.Wrote["agent:"+in.Event.AgentID].Files
	fromTranscript, err := editedFiles(tp)
	if err != nil && !os.IsNotExist(err) {
		return plan, err
	}
	changed = append(slices.Clip(changed), fromTranscript...)
	seen := map[string]bool{}
	snap, known := st.Before["agent:"+in.Event.AgentID]
	if !known && agent != nil && agent.ToolUseID != "" {
		snap, known = st.Before["tool:"+agent.ToolUseID]
	}
	plan.Unknown = !known
	cwd := firstNonEmpty(in.Event.Cwd, in.Layout.Root)
	for _, f := range changed {
		if !filepath.IsAbs(f) {
			f = filepath.Join(cwd, f)
		}
		f = filepath.Clean(f)
		if seen[f] {
			continue
		}
		seen[f] = true
		if slices.ContainsFunc(outputs, func(m misplaced) bool { return m.abs == f }) || s.isOutput(in.Layout.Root, f) {
			continue // output files: deleted, moved or allowed
		}
		switch {
		case !known || slices.Contains(snap.Dirty, f):
			plan.Manual = append(plan.Manual, f)
		case untracked[f]:
			plan.Remove = append(plan.Remove, f)
		default:
			plan.Checkout = append(plan.Checkout, f)
		}
	}
	return plan, nil
}

// isOutput reports a file under an allowed output location.
func (s *outputLocation) isOutput(root, abs string) bool {
	r, err := filepath.Rel(root, abs)
	return err == nil && !strings.HasPrefix(r, "..") && matchAny(s.o.Allowed, filepath.ToSlash(r)) &&
		slices.Contains(s.o.Extensions, strings.ToLower(filepath.Ext(abs)))
}

func (s *outputLocation) complianceMessage(invalid, move []misplaced, plan revertPlan) string {
	skill := s.o.ComplianceSkill
	var b strings.Builder
	b.WriteString("SKILL COMPLIANCE FAILURE DETECTED\n\n")
	b.WriteString("The agent wrote output to wrong location(s) AND failed skill compliance checks.\n")
	b.WriteString("This indicates the agent skipped its mandatory skills.\n\n")
	for _, w := range invalid {
		fmt.Fprintf(&b, "- %s: Missing %s in skills_invoked\n", w.show, skill)
	}
	b.WriteString("\n=== REQUIRED ACTIONS ===\n\n1. DELETE INVALID OUTPUT FILES:\n")
	for _, w := range invalid {
		fmt.Fprintf(&b, "   rm %s\n", shellQuote(w.abs))
	}
	n := 2
	if len(plan.Checkout)+len(plan.Remove) > 0 {
		fmt.Fprintf(&b, "\n%d. REVERT NON-COMPLIANT CODE CHANGES (safe - no prior changes):\n", n)
		for _, f := range plan.Checkout {
			fmt.Fprintf(&b, "   git checkout -- %s\n", shellQuote(f))
		}
		for _, f := range plan.Remove {
			fmt.Fprintf(&b, "   rm %s\n", shellQuote(f))
		}
		n++
	}
	if len(plan.Manual) > 0 {
		why := "HAS PRIOR UNCOMMITTED CHANGES - manual review required"
		if plan.Unknown {
			why = "NO RECORD OF ITS STATE BEFORE THE AGENT - manual review required"
		}
		fmt.Fprintf(&b, "\n%d. MANUAL REVIEW REQUIRED (has prior uncommitted changes):\n", n)
		for _, f := range plan.Manual {
			fmt.Fprintf(&b, "- %s: %s\n", f, why)
		}
		n++
	}
	if len(move) > 0 {
		fmt.Fprintf(&b, "\n%d. MOVE (these used %s but landed in the wrong place) under %s:\n", n, skill, allowedFolders(s.o.Allowed)[0])
		for _, w := range move {
			fmt.Fprintf(&b, "   %s\n", w.show)
		}
		n++
	}
	fmt.Fprintf(&b, "\n%d. RE-DO WITH PROPER COMPLIANCE:\n", n)
	fmt.Fprintf(&b, "   - Invoke ALL mandatory skills (especially %s)\n", skill)
	b.WriteString("   - Follow the discovery protocol to find/create the output directory\n")
	fmt.Fprintf(&b, "   - Write output under %s\n", allowedFolders(s.o.Allowed)[0])
	return b.String()
}

// shellQuote double-quotes a path for sh, escaping what double quotes do
// not protect.
func shellQuote(p string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")
	return `"` + r.Replace(plain(p)) + `"`
}

// agentTranscript derives a subagent's transcript from the parent's:
// <dir>/<session_id>/subagents/agent-<agent_id>.jsonl.
func agentTranscript(parent, sessionID, agentID string) string {
	if strings.ContainsAny(agentID, `/\`) || strings.ContainsAny(sessionID, `/\`) {
		return ""
	}
	return filepath.Join(filepath.Dir(parent), sessionID, "subagents", "agent-"+agentID+".jsonl")
}

// editedFiles lists, in order, the files an agent transcript's Edit,
// Write, MultiEdit and NotebookEdit calls name.
func editedFiles(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	f, _, err := safefs.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxTranscriptBytes))
	sc.Buffer(make([]byte, 0, 64<<10), maxTranscriptLine)
	var out []string
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte(`"tool_use"`)) {
			continue
		}
		var l struct {
			Message struct {
				Content []struct {
					Type  string          `json:"type"`
					Name  string          `json:"name"`
					Input json.RawMessage `json:"input"`
				} `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		for _, c := range l.Message.Content {
			if c.Type != "tool_use" {
				continue
			}
			if slices.Contains(editTools, c.Name) {
				var in struct {
					FilePath     any `json:"file_path"`
					NotebookPath any `json:"notebook_path"`
				}
				_ = json.Unmarshal(c.Input, &in)
				fp, _ := in.FilePath.(string)
				np, _ := in.NotebookPath.(string)
				p := firstNonEmpty(fp, np)
				if p != "" && !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
	}
	if err := sc.Err(); err != nil && err != bufio.ErrTooLong {
		return out, err
	}
	return out, nil
}
