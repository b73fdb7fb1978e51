package recorder

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/logs"
)

// gateProject is a git project with .spcstr/config.yaml, driven through
// Run with DefaultGates: the feedback loop and the strategies together.
type gateProject struct {
	t    *testing.T
	root string
	env  map[string]string
	now  time.Time
}

func newGateProject(t *testing.T, cfg string) *gateProject {
	t.Helper()
	root := t.TempDir()
	p := &gateProject{t: t, root: root, now: time.Date(2026, 1, 18, 10, 0, 0, 0, time.UTC),
		env: map[string]string{"CLAUDE_PROJECT_DIR": root, "SPCSTR_REGISTRY": filepath.Join(root, "registry.json")}}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, ".spcstr"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte(".spcstr/\nregistry.json\n.gitignore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".spcstr/config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// hook runs one event and returns the decoded answer (zero when none).
func (p *gateProject) hook(name string, fields map[string]any) hookio.Answer {
	p.t.Helper()
	payload := map[string]any{"hook_event_name": name, "session_id": "s1", "cwd": p.root}
	for k, v := range fields {
		payload[k] = v
	}
	raw, _ := json.Marshal(payload)
	var out, errOut bytes.Buffer
	p.now = p.now.Add(time.Second)
	now := p.now
	Run(context.Background(), Options{Stdin: bytes.NewReader(raw), Stdout: &out, Stderr: &errOut,
		Getenv: func(k string) string { return p.env[k] }, Now: func() time.Time { return now },
		Alive: func(int) bool { return true }})
	var a hookio.Answer
	if s := strings.TrimSpace(out.String()); s != "" {
		if strings.Count(s, "\n") != 0 {
			p.t.Fatalf("more than one answer line: %q", s)
		}
		if err := json.Unmarshal([]byte(s), &a); err != nil {
			p.t.Fatalf("answer %q: %v", s, err)
		}
	}
	return a
}

func (p *gateProject) edit(file string) hookio.Answer {
	return p.hook(hookio.PostToolUse, map[string]any{"tool_name": "Edit", "tool_use_id": "e" + p.now.Format("150405"),
		"tool_input": map[string]any{"file_path": filepath.Join(p.root, file)}, "tool_response": map[string]any{}})
}

func (p *gateProject) decisions() []gate.Record {
	p.t.Helper()
	var out []gate.Record
	err := logs.ScanFile(filepath.Join(p.root, ".spcstr/logs/decisions.json"), func(raw []byte) error {
		var r gate.Record
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		p.t.Fatal(err)
	}
	return out
}

func (p *gateProject) write(rel, content string) {
	p.t.Helper()
	if err := os.WriteFile(filepath.Join(p.root, rel), []byte(content), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// One answer per hook: the feedback loop and clean-state both block the
// Stop; Claude Code gets one block carrying both reasons, and each gate
// leaves its own decision record under the same request id.
func TestGatesMergeIntoOneAnswer(t *testing.T) {
	p := newGateProject(t, "feedback:\n  enabled: true\nstrategies:\n  clean-state: {}\n  token-budget: {}\n")
	p.write("main.go", "package main\n")
	if a := p.edit("main.go"); a.HookSpecificOutput == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, "backend code") {
		t.Fatalf("edit answer = %+v", a)
	}
	a := p.hook(hookio.Stop, map[string]any{"stop_hook_active": false})
	if a.Decision != "block" || !strings.Contains(a.Reason, "spcstr feedback loop") || !strings.Contains(a.Reason, "clean state required") ||
		!strings.Contains(a.Reason, "main.go") {
		t.Fatalf("stop answer = %+v", a)
	}
	all := p.decisions()
	// The edit's context is an allow record too (reason context).
	if len(all) == 0 || all[0].Hook != "PostToolUse" || all[0].Decision != gate.Allow || all[0].Reason != gate.ReasonContext ||
		!strings.Contains(all[0].Context, "backend code") {
		t.Fatalf("context record = %+v", all)
	}
	recs := stopRecords(all)
	if len(recs) != 2 || recs[0].RequestID != recs[1].RequestID || recs[0].Source != "feedback" || recs[1].Source != "strategy:clean-state" ||
		recs[0].Reason != "pending:backend=review" || recs[1].Reason != "uncommitted-changes" || recs[0].Hook != "Stop" || recs[0].DryRun {
		t.Fatalf("decisions = %+v", recs)
	}
	if recs[0].SessionID != "s1" || recs[0].Timestamp.IsZero() || recs[0].Message == "" {
		t.Fatalf("record fields = %+v", recs[0])
	}
}

// The recorder's guard with the feedback loop: three blocked Stops in a
// row without progress, then the fourth is let through with a
// systemMessage saying what is unmet; a tool call in between is progress.
func TestStopGuardWithFeedbackLoop(t *testing.T) {
	p := newGateProject(t, "feedback:\n  enabled: true\n")
	p.edit("main.go")
	for i := 1; i <= 3; i++ {
		if a := p.hook(hookio.Stop, map[string]any{"stop_hook_active": i > 1}); a.Decision != "block" {
			t.Fatalf("stop %d = %+v", i, a)
		}
	}
	a := p.hook(hookio.Stop, map[string]any{"stop_hook_active": true})
	if a.Decision != "" || !strings.Contains(a.SystemMessage, "feedback gave way: it blocked 3 stops in a row") || !strings.Contains(a.SystemMessage, "backend-reviewer") {
		t.Fatalf("fourth stop = %+v", a)
	}
	recs := p.decisions()
	last := recs[len(recs)-1]
	if last.Decision != gate.Escalated || !strings.HasPrefix(last.Reason, "escalated:") || !strings.Contains(last.Reason, "pending:backend=review") {
		t.Fatalf("escalated record = %+v", last)
	}
	// Progress: the reviewer runs (and rejects); the next Stop blocks again.
	p.hook(hookio.PostToolUse, map[string]any{"tool_name": "Agent", "tool_use_id": "r1",
		"tool_input":    map[string]any{"subagent_type": "backend-reviewer", "prompt": "review"},
		"tool_response": map[string]any{"status": "completed", "agentId": "ar1", "content": []any{map[string]any{"type": "text", "text": "REVIEW_REJECTED\n- typo"}}}})
	if a := p.hook(hookio.Stop, map[string]any{"stop_hook_active": false}); a.Decision != "block" || !strings.Contains(a.Reason, "review FAILED (backend-reviewer): typo") {
		t.Fatalf("stop after progress = %+v", a)
	}
}

// Dry-run (env or config) logs every decision with dry_run: true, blocks
// nothing, and does not count toward the Stop guard.
func TestDryRunWithGates(t *testing.T) {
	for _, mode := range []string{"env", "config"} {
		t.Run(mode, func(t *testing.T) {
			cfg := "feedback:\n  enabled: true\nstrategies:\n  token-budget:\n    deny_agents_above: 1%\n"
			if mode == "config" {
				cfg += "dry_run: true\n"
			}
			p := newGateProject(t, cfg)
			if mode == "env" {
				p.env["SPCSTR_DRY_RUN"] = "1"
			}
			p.edit("main.go")
			for i := 0; i < 5; i++ {
				if a := p.hook(hookio.Stop, nil); a.Decision != "" ||
					!strings.HasPrefix(a.SystemMessage, "spcstr dry run: feedback would block this stop (pending:backend=review); not enforced") {
					t.Fatalf("dry-run stop %d answered %+v", i, a)
				}
			}
			recs := stopRecords(p.decisions())
			if len(recs) != 5 {
				t.Fatalf("records = %d", len(recs))
			}
			for _, r := range recs {
				if r.Decision != gate.Block || !r.DryRun || r.Source != "feedback" {
					t.Fatalf("dry-run record = %+v", r)
				}
			}
		})
	}
}

// A strategy's own dry_run: its decision is logged as dry-run while the
// others are enforced.
func TestPerStrategyDryRun(t *testing.T) {
	p := newGateProject(t, "feedback:\n  enabled: true\nstrategies:\n  clean-state:\n    dry_run: true\n")
	p.write("main.go", "package main\n")
	p.edit("main.go")
	a := p.hook(hookio.Stop, nil)
	if a.Decision != "block" || strings.Contains(a.Reason, "clean state") {
		t.Fatalf("stop = %+v", a)
	}
	recs := stopRecords(p.decisions())
	if len(recs) != 2 || recs[0].DryRun || !recs[1].DryRun || recs[1].Source != "strategy:clean-state" || recs[1].Decision != gate.Block {
		t.Fatalf("records = %+v", recs)
	}
}

// Two strategies that both block at Stop are no conflict: both are
// enforced, and the one block carries both reasons, each attributed, in
// configuration order.
func TestOverlappingStrategiesAllEnforce(t *testing.T) {
	p := newGateProject(t, "strategies:\n  clean-state: {}\n  long-running: {}\n")
	p.write("dirty.go", "package x\n")
	a := p.hook(hookio.Stop, nil)
	if a.Decision != "block" || strings.Contains(a.SystemMessage, "both block") ||
		!strings.HasPrefix(a.Reason, "[strategy:clean-state] ") || !strings.Contains(a.Reason, "\n\n[strategy:long-running] ") {
		t.Fatalf("stop = %+v", a)
	}
	for _, r := range p.decisions() {
		if r.Decision != gate.Block || r.DryRun || !strings.HasPrefix(r.Source, "strategy:") {
			t.Fatalf("record = %+v", r)
		}
	}
}

// PreToolUse: the compaction gate's deny is a permissionDecision, and the
// denied Agent call is not counted as a running agent.
func TestCompactionGateDeny(t *testing.T) {
	p := newGateProject(t, "context_window: 1000\nstrategies:\n  token-budget:\n    deny_agents_above: 50%\n")
	tr := filepath.Join(p.root, "t.jsonl")
	p.write("t.jsonl", `{"type":"assistant","message":{"id":"m1","model":"x","usage":{"input_tokens":700,"output_tokens":5}}}`+"\n")
	a := p.hook(hookio.PreToolUse, map[string]any{"transcript_path": tr, "tool_name": "Agent", "tool_use_id": "a1",
		"tool_input": map[string]any{"subagent_type": "backend-reviewer", "prompt": "x"}})
	h := a.HookSpecificOutput
	if h == nil || h.PermissionDecision != "deny" || !strings.Contains(h.PermissionDecisionReason, "COMPACTION REQUIRED: context at 70%") {
		t.Fatalf("answer = %+v", a)
	}
	data, _ := os.ReadFile(filepath.Join(p.root, ".spcstr/sessions/s1/state.json"))
	if strings.Contains(string(data), `"backend-reviewer"`) {
		t.Fatal("the denied Agent call is recorded as an agent")
	}
	recs := p.decisions()
	if len(recs) != 1 || recs[0].Decision != gate.Deny || recs[0].Reason != "context-over-limit:70%" || recs[0].Hook != "PreToolUse" {
		t.Fatalf("records = %+v", recs)
	}
}

// An escalation (here the Stop guard's, after three blocks of the feedback
// loop) runs the escalation advisor's commands: the context file is
// written, the answer reaches the user with the escalation and Claude with
// the next prompt, and the advice is a decision of its own.
func TestEscalationAdvisorInPipeline(t *testing.T) {
	p := newGateProject(t, "feedback:\n  enabled: true\nstrategies:\n  escalation-advisor:\n    timeout: 10s\n    commands:\n"+
		"      - 'exit 1'\n      - 'cat > seen.json; echo \"try a smaller change\"'\n")
	p.edit("main.go")
	for i := 1; i <= 3; i++ {
		if a := p.hook(hookio.Stop, map[string]any{"stop_hook_active": i > 1}); a.Decision != "block" {
			t.Fatalf("stop %d = %+v", i, a)
		}
	}
	a := p.hook(hookio.Stop, map[string]any{"stop_hook_active": true})
	if a.Decision != "" || !strings.Contains(a.SystemMessage, "feedback gave way: it blocked 3 stops") || !strings.Contains(a.SystemMessage, "spcstr escalation-advisor:\ntry a smaller change") {
		t.Fatalf("escalated stop = %+v", a)
	}
	data, err := os.ReadFile(filepath.Join(p.root, "seen.json"))
	if err != nil || !strings.Contains(string(data), `"source": "feedback"`) || !strings.Contains(string(data), `"reason": "escalated:pending:backend=review"`) {
		t.Fatalf("advisor stdin = %s (%v)", data, err)
	}
	if _, err := os.Stat(filepath.Join(p.root, ".spcstr/sessions/s1/escalation-context.json")); err != nil {
		t.Fatal(err)
	}
	recs := p.decisions()
	last := recs[len(recs)-1]
	if last.Source != "strategy:escalation-advisor" || last.Reason != "advised:commands[1]" || last.Hook != hookio.Stop {
		t.Fatalf("advice record = %+v", last)
	}
	if a := p.hook(hookio.UserPromptSubmit, map[string]any{"prompt": "what now?"}); a.HookSpecificOutput == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, "try a smaller change") {
		t.Fatalf("next prompt = %+v", a)
	}
	// The user's prompt ended the escalation: its context file is gone.
	if _, err := os.Stat(filepath.Join(p.root, ".spcstr/sessions/s1/escalation-context.json")); !os.IsNotExist(err) {
		t.Fatalf("escalation-context.json after the escalation: %v", err)
	}
}

// stopRecords keeps the records of Stop hooks.
func stopRecords(recs []gate.Record) []gate.Record {
	var out []gate.Record
	for _, r := range recs {
		if r.Hook == hookio.Stop {
			out = append(out, r)
		}
	}
	return out
}
