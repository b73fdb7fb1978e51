package feedback

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

const sid = "sess-1"

// world is a project with a session, driven event by event.
type world struct {
	t      *testing.T
	layout state.Layout
	sess   *state.Session
	gates  []gate.Gate
	now    time.Time
}

func newWorld(t *testing.T, cfgYAML string) *world {
	t.Helper()
	root := t.TempDir()
	l := state.Layout{Root: root}
	if err := os.MkdirAll(l.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l.ConfigPath(), []byte(cfgYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(l.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 18, 10, 0, 0, 0, time.UTC)
	return &world{t: t, layout: l, sess: state.New(sid, root, now), now: now,
		gates: Gates(gate.Setup{Layout: l, Config: cfg, Getenv: func(string) string { return "" }})}
}

// send runs the gates on one event (fields merged into a payload).
func (w *world) send(name string, fields map[string]any) []gate.Verdict {
	w.t.Helper()
	payload := map[string]any{"hook_event_name": name, "session_id": sid, "cwd": w.layout.Root}
	for k, v := range fields {
		payload[k] = v
	}
	raw, _ := json.Marshal(payload)
	ev, err := hookio.Decode(raw)
	if err != nil {
		w.t.Fatal(err)
	}
	w.now = w.now.Add(time.Second)
	in := &gate.Input{Event: ev, Name: name, Session: w.sess, Layout: w.layout, Now: w.now, Getenv: func(string) string { return "" }}
	var out []gate.Verdict
	for _, g := range w.gates {
		vs, err := g.Evaluate(context.Background(), in)
		if err != nil {
			w.t.Fatalf("%s on %s: %v", g.Name(), name, err)
		}
		out = append(out, vs...)
	}
	return out
}

func (w *world) edit(file string, agentID string) []gate.Verdict {
	f := map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": filepath.Join(w.layout.Root, file)}, "tool_response": map[string]any{}}
	if agentID != "" {
		f["agent_id"] = agentID
		if a := w.sess.FindAgent(agentID); a != nil {
			f["agent_type"] = a.Name
		}
	}
	return w.send(hookio.PostToolUse, f)
}

// agentDone is a foreground Agent call's PostToolUse, in 2.1.330's shape.
func (w *world) agentDone(agent, id, text string) []gate.Verdict {
	return w.send(hookio.PostToolUse, map[string]any{
		"tool_name":  "Agent",
		"tool_input": map[string]any{"subagent_type": agent, "prompt": "answer REVIEW_APPROVED or REVIEW_REJECTED", "run_in_background": false},
		"tool_response": map[string]any{"status": "completed", "agentId": id, "agentType": agent,
			"content": []any{map[string]any{"type": "text", "text": text}}},
	})
}

func (w *world) stop() []gate.Verdict {
	return w.send(hookio.Stop, map[string]any{"stop_hook_active": true})
}

func (w *world) loop() *Loop {
	w.t.Helper()
	st, err := Load(w.layout, sid)
	if err != nil {
		w.t.Fatal(err)
	}
	if st == nil {
		return nil
	}
	return st.Loop
}

func decision(vs []gate.Verdict) (dec, reason, msg string) {
	for _, v := range vs {
		if v.Decision != "" {
			return v.Decision, v.Reason, v.Message
		}
	}
	return "", "", ""
}

const enabled = "feedback:\n  enabled: true\n  bypass_skills: [orchestrating-*]\n"

func TestGateForegroundLoop(t *testing.T) {
	w := newWorld(t, enabled)
	if vs := w.stop(); len(vs) != 0 {
		t.Fatalf("stop without a loop answered %+v", vs)
	}
	if w.send(hookio.PostToolUse, map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": "x.go"}}) != nil ||
		w.edit("README.md", "") != nil {
		t.Fatal("untracked events answered")
	}
	if _, err := os.Stat(filepath.Join(w.layout.SessionsDir(), sid)); !os.IsNotExist(err) {
		t.Fatalf("session folder created without a loop: %v", err)
	}
	vs := w.edit("cmd/main.go", "")
	if len(vs) != 1 || !strings.Contains(vs[0].Context, "cmd/main.go is backend code") {
		t.Fatalf("edit verdicts = %+v", vs)
	}
	if w.edit("cmd/main.go", "") != nil {
		t.Fatal("a second edit of the same domain repeated the start context")
	}
	steps := []struct {
		agent, text string
		reason      string
		hint        string
	}{
		{"", "", "pending:backend=review", "spawn the `backend-reviewer` agent"},
		{"backend-reviewer", "REVIEW_APPROVED", "pending:backend=test_planning", "spawn the `test-lead` agent"},
		{"test-lead", "TEST_PLAN_READY", "pending:backend=testing", "spawn the `backend-tester` agent"},
	}
	for i, s := range steps {
		if s.agent != "" {
			if vs := w.agentDone(s.agent, "id-"+s.agent, s.text); len(vs) != 0 {
				t.Fatalf("step %d: result answered %+v", i, vs)
			}
		}
		dec, reason, msg := decision(w.stop())
		if dec != gate.Block || reason != s.reason || !strings.Contains(msg, s.hint) || !strings.Contains(msg, "iteration 1/5") {
			t.Fatalf("step %d: stop = %s %s %q", i, dec, reason, msg)
		}
	}
	w.agentDone("backend-tester", "id-t", "## Test Result\nTESTS_PASSED")
	if dec, reason, _ := decision(w.stop()); dec != gate.Allow || reason != "complete" {
		t.Fatalf("final stop = %s %s", dec, reason)
	}
	if vs := w.stop(); len(vs) != 0 {
		t.Fatalf("stop after completion answered %+v", vs)
	}
	l := w.loop()
	if l.Active || l.CompletedAt == nil || l.Iteration != 1 {
		t.Fatalf("loop = %+v", l)
	}
	for _, p := range Phases {
		if ph := l.DomainPhases["backend"].Get(p); ph.Status != Pass || ph.AgentID == "" {
			t.Fatalf("%s = %+v", p, ph)
		}
	}
}

func TestGateBackgroundAgents(t *testing.T) {
	w := newWorld(t, enabled)
	w.edit("main.go", "")
	// Background launch: PostToolUse says async_launched; no result yet.
	w.sess.AgentsHistory = append(w.sess.AgentsHistory, state.Agent{Name: "backend-reviewer", AgentID: "a1", ToolUseID: "tu1",
		Background: true, StartedAt: w.now, Status: state.AgentRunning})
	if vs := w.send(hookio.PostToolUse, map[string]any{"tool_name": "Agent", "tool_use_id": "tu1",
		"tool_input":    map[string]any{"subagent_type": "backend-reviewer", "prompt": "review"},
		"tool_response": map[string]any{"status": "async_launched", "isAsync": true, "agentId": "a1"}}); len(vs) != 0 {
		t.Fatalf("async launch answered %+v", vs)
	}
	if got := w.loop().DomainPhases["backend"].Review.Status; got != NotRun {
		t.Fatalf("async launch set review to %s", got)
	}
	// While it runs, Stop waits rather than blocking.
	if dec, reason, _ := decision(w.stop()); dec != gate.Allow || reason != "waiting:backend-reviewer" {
		t.Fatalf("stop while waiting = %s %s", dec, reason)
	}
	w.send(hookio.SubagentStop, map[string]any{"agent_id": "a1", "agent_type": "backend-reviewer",
		"last_assistant_message": "## Review Result\n\nREVIEW_APPROVED"})
	now := w.now
	w.sess.AgentsHistory[0].CompletedAt = &now
	if got := w.loop().DomainPhases["backend"].Review; got.Status != Pass || got.AgentID != "a1" {
		t.Fatalf("review after SubagentStop = %+v", got)
	}
	// A foreground agent's SubagentStop is left to its PostToolUse.
	w.sess.AgentsHistory = append(w.sess.AgentsHistory, state.Agent{Name: "test-lead", AgentID: "a2", ToolUseID: "tu2", StartedAt: w.now, Status: state.AgentRunning})
	w.send(hookio.SubagentStop, map[string]any{"agent_id": "a2", "agent_type": "test-lead", "last_assistant_message": "TEST_PLAN_BLOCKED"})
	if got := w.loop().DomainPhases["backend"].TestPlanning.Status; got != NotRun {
		t.Fatalf("foreground SubagentStop set test planning to %s", got)
	}
	w.agentDone("test-lead", "a2", "TEST_PLAN_READY")
	w.agentDone("test-lead", "a2", "TEST_PLAN_BLOCKED") // the same agent again: ignored
	if got := w.loop().DomainPhases["backend"].TestPlanning.Status; got != Pass {
		t.Fatalf("test planning = %s", got)
	}
	// An internal helper's SubagentStop (empty type) is ignored.
	if vs := w.send(hookio.SubagentStop, map[string]any{"agent_id": "zz", "agent_type": "", "last_assistant_message": "TESTS_FAILED"}); len(vs) != 0 {
		t.Fatalf("helper SubagentStop answered %+v", vs)
	}
	if w.loop().Iteration != 1 {
		t.Fatal("helper SubagentStop counted")
	}
}

func TestGateSubagentEdits(t *testing.T) {
	w := newWorld(t, enabled)
	w.sess.AgentsHistory = append(w.sess.AgentsHistory,
		state.Agent{Name: "backend-tester", AgentID: "t1", StartedAt: w.now},
		state.Agent{Name: "backend-developer", AgentID: "d1", StartedAt: w.now})
	if vs := w.edit("x_test.go", "t1"); len(vs) != 0 || w.loop() != nil {
		t.Fatalf("a tester's test file started a loop: %+v", vs)
	}
	if vs := w.edit("x.go", "d1"); len(vs) != 1 || w.loop() == nil || !w.loop().Active {
		t.Fatalf("a developer agent's edit did not start a loop: %+v", vs)
	}
}

func TestGateBypass(t *testing.T) {
	w := newWorld(t, enabled)
	w.edit("main.go", "")
	w.send(hookio.PostToolUse, map[string]any{"tool_name": "Skill", "tool_input": map[string]any{"skill": "simplify"}})
	if dec, _, _ := decision(w.stop()); dec != gate.Block {
		t.Fatal("a skill not in bypass_skills bypassed the loop")
	}
	w.send(hookio.PostToolUse, map[string]any{"tool_name": "Skill", "tool_input": map[string]any{"skill": "orchestrating-feature"}})
	if dec, reason, _ := decision(w.stop()); dec != gate.Allow || reason != "bypass:orchestrating-feature" {
		t.Fatalf("stop after bypass = %s %s", dec, reason)
	}
	w2 := newWorld(t, enabled)
	w2.send(hookio.UserPromptExpansion, map[string]any{"command_name": "/orchestrating-capability"})
	w2.edit("main.go", "")
	if dec, reason, _ := decision(w2.stop()); dec != gate.Allow || reason != "bypass:orchestrating-capability" {
		t.Fatalf("slash-command bypass = %s %s", dec, reason)
	}
}

func TestGateEscalation(t *testing.T) {
	w := newWorld(t, enabled)
	if err := os.MkdirAll(filepath.Join(w.layout.Root, ".claude/config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.layout.Root, DefaultLimitsFile),
		[]byte("inter_phase:\n  max_consecutive_review_failures: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.edit("main.go", "")
	vs := w.agentDone("backend-reviewer", "r1", "REVIEW_REJECTED\n- nope")
	if len(vs) != 0 {
		t.Fatalf("first rejection answered %+v", vs)
	}
	if dec, _, msg := decision(w.stop()); dec != gate.Block || !strings.Contains(msg, "review FAILED (backend-reviewer): nope") {
		t.Fatalf("stop after rejection = %s %q", dec, msg)
	}
	vs = w.agentDone("backend-reviewer", "r2", "REVIEW_REJECTED\n- still no")
	if len(vs) != 1 || !strings.Contains(vs[0].SystemMessage, "review of backend failed 2 times in a row") ||
		!strings.Contains(vs[0].Context, "escalated to the user") {
		t.Fatalf("escalating result = %+v", vs)
	}
	dec, reason, _ := decision(w.stop())
	if dec != gate.Allow || reason != "escalated:review_failures:backend" {
		t.Fatalf("stop after escalation = %s %s", dec, reason)
	}
	if vs := w.stop(); len(vs) != 0 {
		t.Fatalf("second stop after escalation answered %+v", vs)
	}
	// A task notification is not the user; the user's prompt closes it.
	w.send(hookio.UserPromptSubmit, map[string]any{"prompt": "<task-notification>done</task-notification>"})
	if !w.loop().Active {
		t.Fatal("a task notification closed the escalated loop")
	}
	w.send(hookio.UserPromptSubmit, map[string]any{"prompt": "ok, try another approach"})
	st, _ := Load(w.layout, sid)
	if st.State != StateIdle {
		t.Fatalf("state after the user's prompt = %s", st.State)
	}
	w.edit("main.go", "")
	if l := w.loop(); !l.Active || l.Loops != 2 || l.Escalation != nil || l.Failures["backend"].Review != 0 {
		t.Fatalf("new loop = %+v", l)
	}
	if dec, _, _ := decision(w.stop()); dec != gate.Block {
		t.Fatal("the new loop does not block")
	}
}

func TestGatePromptContext(t *testing.T) {
	w := newWorld(t, enabled)
	if vs := w.send(hookio.UserPromptSubmit, map[string]any{"prompt": "hi"}); len(vs) != 0 {
		t.Fatalf("prompt without loop answered %+v", vs)
	}
	w.edit("ui/App.tsx", "")
	vs := w.send(hookio.UserPromptSubmit, map[string]any{"prompt": "go on"})
	if len(vs) != 1 || vs[0].Context != "<active-feedback-loop>iteration 1/5; frontend: review next (frontend-reviewer)</active-feedback-loop>" {
		t.Fatalf("prompt context = %+v", vs)
	}
	vs = w.send(hookio.SessionStart, map[string]any{"source": "compact"})
	if len(vs) != 1 || !strings.Contains(vs[0].Context, "frontend: review next") {
		t.Fatalf("compact context = %+v", vs)
	}
	if vs := w.send(hookio.SessionStart, map[string]any{"source": "startup"}); len(vs) != 0 {
		t.Fatalf("startup answered %+v", vs)
	}
}

func TestGateIgnoredAgentTold(t *testing.T) {
	w := newWorld(t, enabled)
	w.edit("main.go", "")
	vs := w.agentDone("reviewer", "x1", "REVIEW_APPROVED")
	if len(vs) != 1 || !strings.Contains(vs[0].Context, `agent "reviewer" does not count`) || !strings.Contains(vs[0].Context, "backend-reviewer") {
		t.Fatalf("ignored agent = %+v", vs)
	}
	vs = w.agentDone("backend-reviewer", "x2", "looks good")
	if len(vs) != 1 || !strings.Contains(vs[0].Context, "counts as FAIL") {
		t.Fatalf("missing marker = %+v", vs)
	}
}

func TestGatesConfig(t *testing.T) {
	off := newWorld(t, "logs:\n  max_bytes: 0\n")
	if len(off.gates) != 0 {
		t.Fatalf("gates without feedback config: %d", len(off.gates))
	}
	bad := newWorld(t, "feedback:\n  enabled: true\n  rules: [{domain: x}]\n")
	if len(bad.gates) != 1 {
		t.Fatalf("gates with a bad config: %d", len(bad.gates))
	}
	if vs := bad.send(hookio.Notification, nil); len(vs) != 0 {
		t.Fatal("config problem told on an event that discards systemMessage")
	}
	vs := bad.send(hookio.UserPromptSubmit, map[string]any{"prompt": "x"})
	if len(vs) != 1 || !strings.Contains(vs[0].SystemMessage, "feedback loop is off") || vs[0].Decision != "" {
		t.Fatalf("config problem = %+v", vs)
	}
	if vs := bad.send(hookio.Stop, nil); len(vs) != 0 {
		t.Fatal("config problem told twice")
	}
	if errs := Validate(gate.Setup{Layout: bad.layout, Config: mustLoad(t, bad.layout)}); len(errs) != 1 {
		t.Fatalf("Validate = %v", errs)
	}
}

func mustLoad(t *testing.T, l state.Layout) *config.Config {
	cfg, err := config.Load(l.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestGateCorruptState(t *testing.T) {
	w := newWorld(t, enabled)
	w.edit("main.go", "")
	p, _ := w.layout.FeedbackPath(sid)
	if err := os.WriteFile(p, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(w.layout, sid); err == nil {
		t.Fatal("Load of a corrupt file gave no error")
	}
	w.edit("main.go", "") // the gate sets it aside and starts over
	matches, _ := filepath.Glob(p + ".corrupt-*")
	if len(matches) != 1 || w.loop() == nil || !w.loop().Active {
		t.Fatalf("corrupt file not set aside (%v) or loop not restarted", matches)
	}
	if n := len(w.sess.Errors); n != 1 || !strings.Contains(w.sess.Errors[0].Message, "feedback loop") {
		t.Fatalf("session errors = %+v", w.sess.Errors)
	}
}

// The orchestration skills seen in the transcript bypass the loop too (an
// orchestration that loads its skill by reading it, say), the transcript
// read from where the previous Stop stopped; bypass_pattern changes or
// turns off the search.
func TestGateBypassFromTranscript(t *testing.T) {
	for _, tt := range []struct {
		name, cfg, line, want string
	}{
		{"default pattern", "feedback:\n  enabled: true\n", `{"type":"assistant","message":{"content":[{"type":"text","text":"Using orchestrating-capability now"}]}}`, "bypass:orchestrating-capability"},
		{"configured pattern", "feedback:\n  enabled: true\n  bypass_pattern: 'my-orchestrator'\n", `{"type":"user","message":"run my-orchestrator"}`, "bypass:my-orchestrator"},
		{"turned off", "feedback:\n  enabled: true\n  bypass_pattern: ''\n", `{"type":"user","message":"orchestrating-feature"}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.cfg)
			tp := filepath.Join(t.TempDir(), "main.jsonl")
			os.WriteFile(tp, []byte(`{"type":"user","message":"hi"}`+"\n"), 0o644)
			stop := func() (string, string) {
				dec, reason, _ := decision(w.send(hookio.Stop, map[string]any{"stop_hook_active": true, "transcript_path": tp}))
				return dec, reason
			}
			w.edit("main.go", "")
			if dec, _ := stop(); dec != gate.Block {
				t.Fatalf("first stop = %s", dec)
			}
			if got, want := w.loop().TranscriptScanned, int64(31); tt.want != "" && got != want || tt.want == "" && got != 0 {
				t.Fatalf("scanned = %d", got)
			}
			f, _ := os.OpenFile(tp, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(tt.line + "\n")
			f.Close()
			dec, reason := stop()
			if tt.want == "" {
				if dec != gate.Block {
					t.Fatalf("search off: %s %s", dec, reason)
				}
				return
			}
			if dec != gate.Allow || reason != tt.want {
				t.Fatalf("stop = %s %s, want allow %s", dec, reason, tt.want)
			}
			if h := w.loop().History; h[len(h)-1].Kind != KindBypass || !strings.Contains(h[len(h)-1].Note, "seen in the transcript") {
				t.Errorf("history = %+v", h[len(h)-1])
			}
		})
	}
	// A bad pattern is a configuration error.
	if _, err := loadCfg(t, "feedback:\n  bypass_pattern: '('\n"); err == nil || !strings.Contains(err.Error(), "bypass_pattern") {
		t.Fatalf("bad pattern: %v", err)
	}
}
