package strategy

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

func TestQualityGate(t *testing.T) {
	tests := []struct {
		name      string
		yaml      string
		files     []string
		agents    []string
		loopFile  bool
		want      []string // per Stop: "" (no verdict), "allow", "block"
		wantAgent string
	}{
		{"no code changed", "", []string{"README.md"}, nil, false, []string{""}, "backend-reviewer"},
		{"code changed, no reviewer: block once", "", []string{"a.go", "b.go"}, nil, false, []string{"block", "allow"}, "backend-reviewer"},
		{"a reviewer ran", "", []string{"a.go"}, []string{"backend-reviewer"}, false, []string{"allow"}, "backend-reviewer"},
		{"another domain's reviewer does not count", "", []string{"a.go", "App.tsx"}, []string{"backend-reviewer"}, false, []string{"block", "allow"}, "frontend-reviewer"},
		{"the loop is on and has state", "feedback:\n  enabled: true\n", []string{"a.go"}, nil, true, []string{""}, "backend-reviewer"},
		{"the loop is on but kept no state", "feedback:\n  enabled: true\n", []string{"a.go"}, nil, false, []string{"block"}, "backend-reviewer"},
		{"the loop is off, its stale state does not count", "", []string{"a.go"}, nil, true, []string{"block"}, "backend-reviewer"},
		{"configured reviewer names", "feedback:\n  domains:\n    backend:\n      reviewer: [go-reviewer]\n", []string{"a.go"}, []string{"go-reviewer"}, false, []string{"allow"}, "go-reviewer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, false)
			gs := p.gates(tt.yaml + "strategies:\n  quality-gate: {}\n")
			p.sess.Files.Edited = tt.files
			for _, a := range tt.agents {
				p.sess.AgentsHistory = append(p.sess.AgentsHistory, state.Agent{Name: a, AgentID: "id-" + a, StartedAt: p.now})
			}
			if tt.loopFile {
				fp, _ := p.layout.FeedbackPath("s1")
				p.write(strings.TrimPrefix(fp, p.layout.Root+"/"), `{"version":1,"active":true,"iteration":1,"modified_domains":["backend"],"domain_phases":{}}`)
			}
			for i, want := range tt.want {
				vs := run(t, gs, p.input(hookio.Stop, nil))
				got := ""
				if len(vs) == 1 {
					got = vs[0].Decision
				}
				if got != want {
					t.Fatalf("stop %d: got %q, want %q (%+v)", i, got, want, vs)
				}
				if got == gate.Block && !strings.Contains(vs[0].Message, "run the "+tt.wantAgent+" agent") {
					t.Errorf("message = %q", vs[0].Message)
				}
			}
		})
	}
	// A new change after the block blocks again.
	p := newProject(t, false)
	gs := p.gates("strategies:\n  quality-gate: {}\n")
	p.sess.Files.Edited = []string{"a.go"}
	for i, want := range []string{gate.Block, gate.Allow} {
		if vs := run(t, gs, p.input(hookio.Stop, nil)); vs[0].Decision != want {
			t.Fatalf("stop %d = %+v", i, vs)
		}
	}
	p.sess.Files.New = []string{"c.go"}
	if vs := run(t, gs, p.input(hookio.Stop, nil)); vs[0].Decision != gate.Block {
		t.Fatalf("after a new change = %+v", vs)
	}
}

func TestIterationLimit(t *testing.T) {
	p := newProject(t, false)
	p.write(".claude/config/orchestration-limits.yaml", "intra_task:\n  max_iterations: 2\n")
	gs := p.gates("strategies:\n  iteration-limit: {}\n")
	stop := func() gate.Verdict {
		t.Helper()
		vs := run(t, gs, p.input(hookio.Stop, nil))
		if len(vs) != 1 {
			t.Fatalf("verdicts = %+v", vs)
		}
		return vs[0]
	}
	if vs := run(t, gs, p.input(hookio.Stop, nil)); len(vs) != 0 {
		t.Fatalf("nothing open = %+v", vs)
	}
	p.sess.Todos = []state.Todo{{Content: "write the parser", Status: "in_progress"}, {Content: "done thing", Status: "completed"}}
	for i, want := range []string{"iteration:1/2", "iteration:2/2", "escalated:iteration-limit:2", "escalated:iteration-limit"} {
		v := stop()
		if v.Reason != want {
			t.Fatalf("stop %d: reason %q, want %q (%+v)", i, v.Reason, want, v)
		}
		if i < 2 && (v.Decision != gate.Block || !strings.Contains(v.Message, "write the parser") || strings.Contains(v.Message, "done thing")) {
			t.Fatalf("stop %d = %+v", i, v)
		}
		if i == 2 && (v.Decision != gate.Allow || !strings.Contains(v.SystemMessage, "2 times")) {
			t.Fatalf("escalation = %+v", v)
		}
	}
	// The user speaks: a new task, counted afresh.
	run(t, gs, p.input(hookio.UserPromptSubmit, map[string]any{"prompt": "go on"}))
	if v := stop(); v.Reason != "iteration:1/2" {
		t.Fatalf("after a prompt = %+v", v)
	}
	// Done: the count resets.
	p.sess.Todos[0].Status = "completed"
	if vs := run(t, gs, p.input(hookio.Stop, nil)); len(vs) != 0 {
		t.Fatalf("done = %+v", vs)
	}
	// A subagent with a completion marker; max_iterations overrides the file.
	gs = p.gates("strategies:\n  iteration-limit:\n    max_iterations: 1\n    completion_marker: TASK_COMPLETE\n")
	sub := func(msg string) gate.Verdict {
		vs := run(t, gs, p.input(hookio.SubagentStop, map[string]any{"agent_id": "a9", "agent_type": "builder", "last_assistant_message": msg}))
		if len(vs) != 1 {
			t.Fatalf("verdicts = %+v", vs)
		}
		return vs[0]
	}
	if v := sub("working on it"); v.Decision != gate.Block || v.Reason != "iteration:1/1" || !strings.Contains(v.Message, "TASK_COMPLETE") {
		t.Fatalf("subagent = %+v", v)
	}
	if v := sub("still"); v.Decision != gate.Allow || !strings.HasPrefix(v.Reason, "escalated:") {
		t.Fatalf("subagent at the limit = %+v", v)
	}
	if vs := run(t, gs, p.input(hookio.SubagentStop, map[string]any{"agent_id": "a10", "last_assistant_message": "TASK_COMPLETE"})); len(vs) != 0 {
		t.Fatalf("complete subagent = %+v", vs)
	}
}

func TestSessionReminder(t *testing.T) {
	p := newProject(t, false)
	p.write("reminder.md", "Use the skills.\x1b[31m\n")
	gs := p.gates("strategies:\n  session-reminder:\n    file: reminder.md\n")
	prompt := func(text string) string {
		vs := run(t, gs, p.input(hookio.UserPromptSubmit, map[string]any{"prompt": text}))
		if len(vs) == 0 {
			return ""
		}
		return vs[0].Context
	}
	if got := prompt("hello"); got != "<session-reminder>\nUse the skills.\n</session-reminder>" {
		t.Fatalf("static = %q", got)
	}
	if got := prompt("<task-notification>done</task-notification>"); got != "" {
		t.Fatalf("task notification = %q", got)
	}
	// An active loop is the loop's own to say (once per prompt, source
	// feedback): the reminder does not repeat it.
	fp, _ := p.layout.FeedbackPath("s1")
	p.write(strings.TrimPrefix(fp, p.layout.Root+"/"), `{"version":1,"active":true,"iteration":2,"modified_domains":["backend"],"domain_phases":{"backend":{"review":{"status":"PASS"},"test_planning":{"status":"NOT_RUN"},"testing":{"status":"NOT_RUN"}}}}`)
	if got := prompt("next"); strings.Contains(got, "active-feedback-loop") {
		t.Fatalf("dynamic = %q", got)
	}
	// Unmet requirements that Stop would block on.
	p.git2(t)
	p.write(".claude/requirements.yaml", "requirements:\n  commit_plan:\n    enabled: true\n    scope: session\n    trigger_tools: [Edit]\n    message: plan first\n")
	if got := unmetRequirements(p.input(hookio.UserPromptSubmit, nil)); len(got) != 0 {
		t.Fatalf("untriggered requirement listed: %v", got)
	}
	gs = p.gates("strategies:\n  session-reminder:\n    text: hi\n    dynamic: false\n")
	if got := prompt("x"); got != "<session-reminder>\nhi\n</session-reminder>" {
		t.Fatalf("dynamic off = %q", got)
	}
	// Without text or file: the hooks architecture's skills reminder; an
	// empty text turns the static part off.
	gs = p.gates("strategies:\n  session-reminder: {}\n")
	if got := prompt("x"); got != "<session-reminder>\n"+DefaultReminder+"\n</session-reminder>" {
		t.Fatalf("default = %q", got)
	}
	gs = p.gates("strategies:\n  session-reminder:\n    text: \"\"\n")
	if got := prompt("x"); got != "" {
		t.Fatalf("text off = %q", got)
	}
	// SessionStart: nothing unless asked; then the using-skills document,
	// else the static reminder.
	start := func() string {
		vs := run(t, gs, p.input(hookio.SessionStart, map[string]any{"source": "startup"}))
		if len(vs) == 0 {
			return ""
		}
		return vs[0].Context
	}
	gs = p.gates("strategies:\n  session-reminder: {}\n")
	if got := start(); got != "" {
		t.Fatalf("session start without the option = %q", got)
	}
	gs = p.gates("strategies:\n  session-reminder:\n    text: hi\n    session_start: true\n")
	if got := start(); got != "<using-skills>\nhi\n</using-skills>" {
		t.Fatalf("session start fallback = %q", got)
	}
	p.write(DefaultUsingSkillsFile, "# Using skills\x1b]0;t\x07\nCheck for a skill first.\n")
	if got := start(); got != "<using-skills>\n# Using skills\nCheck for a skill first.\n</using-skills>" {
		t.Fatalf("session start = %q", got)
	}
}

// git2 makes the project a git repository (requirements keep their state
// in the git common dir).
func (p *project) git2(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(p.layout.Root, ".git")); err == nil {
		return
	}
	p.git("init", "-q", "-b", "main")
}

func TestPrecompactContext(t *testing.T) {
	p := newProject(t, false)
	gs := p.gates("strategies:\n  precompact-context: {}\n")
	if vs := run(t, gs, p.input(hookio.SessionStart, map[string]any{"source": "compact"})); len(vs) != 0 {
		t.Fatalf("nothing to restore = %+v", vs)
	}
	fp, _ := p.layout.FeedbackPath("s1")
	p.write(strings.TrimPrefix(fp, p.layout.Root+"/"), `{"version":1,"active":true,"iteration":1,"modified_domains":["backend"],"domain_phases":{"backend":{"review":{"status":"PASS"},"test_planning":{"status":"NOT_RUN"},"testing":{"status":"NOT_RUN"}}}}`)
	p.write(".claude/.output/features/auth/MANIFEST.yaml", "feature: auth\ncurrent_phase: implementation\n")
	if vs := run(t, gs, p.input(hookio.PreCompact, map[string]any{"trigger": "auto"})); len(vs) != 0 {
		t.Fatalf("PreCompact answered %+v", vs)
	}
	var st pcState
	if err := readNS(p.input(hookio.PreCompact, nil), NamePrecompactContext, &st); err != nil || !strings.Contains(st.Saved, "current_phase implementation") {
		t.Fatalf("saved = %q, %v", st.Saved, err)
	}
	for _, src := range []string{"startup", "resume"} {
		if vs := run(t, gs, p.input(hookio.SessionStart, map[string]any{"source": src})); len(vs) != 0 {
			t.Fatalf("%s = %+v", src, vs)
		}
	}
	vs := run(t, gs, p.input(hookio.SessionStart, map[string]any{"source": "compact"}))
	if len(vs) != 1 {
		t.Fatalf("compact = %+v", vs)
	}
	for _, want := range []string{"Feedback loop (active), iteration 1/5: backend: review pass, test planning not_run, testing not_run",
		"Orchestration .claude/.output/features/auth/MANIFEST.yaml: current_phase implementation"} {
		if !strings.Contains(vs[0].Context, want) {
			t.Errorf("context %q lacks %q", vs[0].Context, want)
		}
	}
	// The state gone after the compaction: what PreCompact saw comes back.
	os.Remove(fp)
	os.RemoveAll(filepath.Join(p.layout.Root, ".claude"))
	vs = run(t, gs, p.input(hookio.SessionStart, map[string]any{"source": "compact"}))
	if len(vs) != 1 || !strings.Contains(vs[0].Context, "current_phase implementation") {
		t.Fatalf("fallback = %+v", vs)
	}
}

func TestEscalationAdvisor(t *testing.T) {
	p := newProject(t, false)
	escalated := []gate.Verdict{{Source: "feedback", Decision: gate.Allow, Reason: "escalated:max-iterations", SystemMessage: "gave up"}}
	advise := func(yaml string) []gate.Verdict {
		t.Helper()
		list, problems := Load(cfgFrom(t, yaml))
		if len(problems) != 0 {
			t.Fatal(problems)
		}
		a := list[0].strategy.(*escalationAdvisor)
		vs, err := a.Advise(context.Background(), p.input(hookio.Stop, nil), escalated)
		if err != nil {
			t.Fatal(err)
		}
		return vs
	}
	if vs := advise("strategies:\n  escalation-advisor: {}\n"); len(vs) != 0 {
		t.Fatalf("no command, no advisor: %+v", vs)
	}
	// The first command fails, the second is too slow, the third answers
	// with what it read; the fourth never runs.
	out := filepath.Join(p.layout.Root, "ran-4")
	yaml := "strategies:\n  escalation-advisor:\n    timeout: 1s\n    commands:\n" +
		"      - exit 3\n      - sleep 5; echo late\n      - 'printf \"advice: \"; grep -o max-iterations'\n      - touch " + out + "\n"
	vs := advise(yaml)
	if len(vs) != 1 || vs[0].Reason != "advised:commands[2]" || vs[0].SystemMessage != "spcstr escalation-advisor:\nadvice: max-iterations" {
		t.Fatalf("advice = %+v", vs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a command after the answer ran")
	}
	dir, _ := p.layout.SessionDir("s1")
	data, err := os.ReadFile(filepath.Join(dir, EscalationContextFile))
	var ec EscalationContext
	if err != nil || json.Unmarshal(data, &ec) != nil || len(ec.Escalations) != 1 || ec.Escalations[0].Message != "gave up" || ec.Hook != hookio.Stop {
		t.Fatalf("context file = %s %v", data, err)
	}
	// The same escalation again: no second run.
	if vs := advise(yaml); len(vs) != 0 {
		t.Fatalf("advised twice: %+v", vs)
	}
	// Claude gets the advice with the next prompt, once.
	gs := p.gates(yaml)
	vs = run(t, gs, p.input(hookio.UserPromptSubmit, map[string]any{"prompt": "ok"}))
	if len(vs) != 1 || !strings.Contains(vs[0].Context, "advice: max-iterations") {
		t.Fatalf("prompt = %+v", vs)
	}
	if vs := run(t, gs, p.input(hookio.UserPromptSubmit, map[string]any{"prompt": "ok"})); len(vs) != 0 {
		t.Fatalf("second prompt = %+v", vs)
	}
	// No command answers.
	escalated[0].Reason = "escalated:other"
	if vs := advise("strategies:\n  escalation-advisor:\n    commands: [\"true\"]\n"); len(vs) != 1 || vs[0].Reason != "no-advice" {
		t.Fatalf("no answer = %+v", vs)
	}
}
