package strategy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

// transcriptLines writes an agent transcript whose tool calls edit files.
func transcriptLines(t *testing.T, path string, calls [][2]string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"type":"user","message":{"role":"user","content":"do it"}}` + "\n")
	for _, c := range calls {
		line, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "x", "name": c[0], "input": map[string]any{"file_path": c[1], "todos": "not a list"}}}}})
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOutputLocationCompliance(t *testing.T) {
	p := newProject(t, true)
	root := p.layout.Root
	p.write("shared.go", "package x\n")
	p.write("clean.go", "package x\n")
	p.git("add", "-A")
	p.git("commit", "-q", "-m", "code")
	p.write("shared.go", "package x // someone else's work in progress\n")
	gs := p.gates("strategies:\n  output-location:\n    compliance_skill: persisting-agent-outputs\n")

	// The agent starts: PreToolUse of Agent, then SubagentStart.
	run(t, gs, p.input(hookio.PreToolUse, map[string]any{"tool_name": "Agent", "tool_use_id": "t1", "tool_input": map[string]any{"subagent_type": "backend-developer"}}))
	started := time.Now().Add(-2 * time.Second)
	p.sess.AgentsHistory = []state.Agent{{Name: "backend-developer", AgentType: "backend-developer", AgentID: "a1", ToolUseID: "t1", StartedAt: started}}
	run(t, gs, p.input(hookio.SubagentStart, map[string]any{"agent_id": "a1", "agent_type": "backend-developer"}))
	var st olState
	if err := readNS(p.input(hookio.Stop, nil), NameOutputLocation, &st); err != nil {
		t.Fatal(err)
	}
	if snap, ok := st.Before["agent:a1"]; !ok || len(st.Before) != 1 || len(snap.Dirty) != 1 || snap.Dirty[0] != filepath.Join(root, "shared.go") {
		t.Fatalf("before = %+v", st.Before)
	}

	// It works: a stray report without the skill, a note that used it,
	// code edits, and a new file.
	p.write("report.md", "# Report\n")
	p.write("notes.md", "skills_invoked: [persisting-agent-outputs]\n")
	p.write("clean.go", "package x // changed\n")
	p.write("shared.go", "package x // both\n")
	p.write("new.go", "package x\n")
	p.write(".claude/.output/agents/1/out.md", "fine")
	tp := filepath.Join(t.TempDir(), "s1", "subagents", "agent-a1.jsonl")
	transcriptLines(t, tp, [][2]string{{"Write", filepath.Join(root, "report.md")}, {"Edit", filepath.Join(root, "clean.go")},
		{"Edit", filepath.Join(root, "shared.go")}, {"Write", filepath.Join(root, "new.go")}, {"Read", filepath.Join(root, "README.md")},
		{"Write", filepath.Join(root, ".claude/.output/agents/1/out.md")}})
	vs := run(t, gs, p.input(hookio.SubagentStop, map[string]any{"agent_id": "a1", "agent_type": "backend-developer", "agent_transcript_path": tp}))
	if len(vs) != 1 || vs[0].Decision != gate.Block || vs[0].Reason != "skill-compliance-failure:1" {
		t.Fatalf("verdicts = %+v", vs)
	}
	msg := vs[0].Message
	q := func(rel string) string { return `"` + filepath.Join(root, rel) + `"` }
	for _, want := range []string{
		"SKILL COMPLIANCE FAILURE DETECTED\n",
		"- report.md: Missing persisting-agent-outputs in skills_invoked",
		"1. DELETE INVALID OUTPUT FILES:\n   rm " + q("report.md") + "\n",
		"2. REVERT NON-COMPLIANT CODE CHANGES (safe - no prior changes):\n   git checkout -- " + q("clean.go") + "\n   rm " + q("new.go") + "\n",
		"3. MANUAL REVIEW REQUIRED (has prior uncommitted changes):\n- " + filepath.Join(root, "shared.go") + ": HAS PRIOR UNCOMMITTED CHANGES",
		"4. MOVE (these used persisting-agent-outputs but landed in the wrong place) under .claude/.output/:\n   notes.md\n",
		"5. RE-DO WITH PROPER COMPLIANCE:",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "README.md") || strings.Contains(msg, "out.md") {
		t.Errorf("message lists a read or an allowed output:\n%s", msg)
	}

	// Only a note that used the skill: it just needs moving.
	os.Remove(filepath.Join(root, "report.md"))
	vs = run(t, gs, p.input(hookio.SubagentStop, map[string]any{"agent_id": "a1", "agent_type": "backend-developer", "agent_transcript_path": tp}))
	if len(vs) != 1 || vs[0].Reason != "misplaced-output:1" || strings.Contains(vs[0].Message, "COMPLIANCE") {
		t.Fatalf("move only = %+v", vs)
	}

	// No record of the state before the agent: everything is manual.
	os.WriteFile(filepath.Join(root, "report.md"), []byte("x"), 0o644)
	p.sess.AgentsHistory = append(p.sess.AgentsHistory, state.Agent{Name: "backend-developer", AgentID: "a2", StartedAt: started})
	vs = run(t, gs, p.input(hookio.SubagentStop, map[string]any{"agent_id": "a2", "agent_type": "backend-developer", "agent_transcript_path": tp}))
	if len(vs) != 1 || !strings.Contains(vs[0].Message, filepath.Join(root, "clean.go")+": NO RECORD") || strings.Contains(vs[0].Message, "git checkout") {
		t.Fatalf("unknown before = %+v", vs)
	}
}

func TestOutputLocationLayer1(t *testing.T) {
	p := newProject(t, false)
	gs := p.gates("strategies:\n  output-location:\n    compliance_skill: persisting-agent-outputs\n")
	tdir := t.TempDir()
	parent := filepath.Join(tdir, "s1.jsonl")
	post := func(typ string, resp map[string]any) []gate.Verdict {
		return run(t, gs, p.input(hookio.PostToolUse, map[string]any{"tool_name": "Agent", "transcript_path": parent,
			"tool_input": map[string]any{"subagent_type": typ}, "tool_response": resp}))
	}
	text := func(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }
	if vs := post("backend-developer", map[string]any{"status": "completed", "agentId": "a1", "content": text("done")}); len(vs) != 1 ||
		vs[0].Reason != "skill-not-used:backend-developer" || !strings.Contains(vs[0].Context, "persisting-agent-outputs") {
		t.Fatalf("warning = %+v", vs)
	}
	if vs := post("backend-developer", map[string]any{"status": "completed", "agentId": "a1", "content": text("used persisting-agent-outputs")}); len(vs) != 0 {
		t.Fatalf("answer shows the skill: %+v", vs)
	}
	transcriptLines(t, filepath.Join(tdir, "s1", "subagents", "agent-a3.jsonl"), nil)
	os.WriteFile(filepath.Join(tdir, "s1", "subagents", "agent-a3.jsonl"), []byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Skill","input":{"skill":"persisting-agent-outputs"}}]}}`+"\n"), 0o644)
	if vs := post("backend-developer", map[string]any{"status": "completed", "agentId": "a3", "content": text("done")}); len(vs) != 0 {
		t.Fatalf("transcript shows the skill: %+v", vs)
	}
	if vs := post("backend-developer", map[string]any{"status": "async_launched", "agentId": "a4"}); len(vs) != 0 {
		t.Fatalf("background launch: %+v", vs)
	}
	if vs := post("Explore", map[string]any{"status": "completed", "content": text("done")}); len(vs) != 0 {
		t.Fatalf("skipped agent: %+v", vs)
	}
	// Without compliance_skill the strategy does not use these hooks.
	gs = p.gates("strategies:\n  output-location: {}\n")
	if vs := post("backend-developer", map[string]any{"status": "completed", "content": text("done")}); len(vs) != 0 {
		t.Fatalf("without the option: %+v", vs)
	}
}

func TestOutputLocationWorktrees(t *testing.T) {
	p := newProject(t, true)
	main := p.layout.Root
	wt := filepath.Join(t.TempDir(), "wt")
	p.git("worktree", "add", "-q", wt)
	// The session runs in the worktree; an agent writes at the worktree's
	// root and leaks a file into the main checkout.
	q := &project{t: t, layout: state.Layout{Root: wt}, now: p.now, sess: state.New("s1", wt, p.now)}
	os.MkdirAll(q.layout.LogsDir(), 0o755)
	q.sess.CreatedAt = time.Now().Add(-time.Minute)
	os.WriteFile(filepath.Join(wt, ".gitignore"), []byte(".spcstr/\n"), 0o644)
	gs := q.gates("strategies:\n  output-location: {}\n")
	q.write("at-root.md", "x")
	p.write("leaked.md", "x")
	vs := run(t, gs, q.input(hookio.Stop, nil))
	if len(vs) != 1 || vs[0].Reason != "misplaced-output:2" || !strings.Contains(vs[0].Message, "at-root.md") ||
		!strings.Contains(vs[0].Message, filepath.Join(main, "leaked.md")) {
		t.Fatalf("worktree = %+v", vs)
	}
	// An agent whose cwd is a worktree of the project checked out in main.
	os.Remove(filepath.Join(main, "leaked.md"))
	gs = p.gates("strategies:\n  output-location: {}\n")
	vs = run(t, gs, p.input(hookio.Stop, map[string]any{"cwd": wt}))
	if len(vs) != 1 || !strings.Contains(vs[0].Message, filepath.Join(wt, "at-root.md")) {
		t.Fatalf("agent worktree = %+v", vs)
	}
}

// TestComplianceMessageDocumented: the block message in
// docs/feedback-and-strategies.md is the one the strategy writes.
func TestComplianceMessageDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/feedback-and-strategies.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "the block message reads:\n\n  ```\n")
	doc, _, ok2 := strings.Cut(after, "  ```\n")
	if !ok || !ok2 {
		t.Fatal("no message example in the docs")
	}
	var want strings.Builder
	for _, l := range strings.SplitAfter(doc, "\n") {
		want.WriteString(strings.TrimPrefix(l, "  "))
	}
	s := &outputLocation{o: outputLocationOptions{ComplianceSkill: "persisting-agent-outputs", Allowed: defaultAllowed}}
	got := s.complianceMessage([]misplaced{{abs: "/repo/report.md", show: "report.md"}}, []misplaced{{abs: "/repo/notes.md", show: "notes.md"}},
		revertPlan{Checkout: []string{"/repo/internal/clean.go"}, Remove: []string{"/repo/internal/new.go"}, Manual: []string{"/repo/internal/shared.go"}})
	if got != want.String() {
		t.Fatalf("message:\n%s\ndocs:\n%s", got, want.String())
	}
}
