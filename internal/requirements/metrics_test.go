package requirements_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/recorder"
)

func TestSessionMetricsAndReflectPrompt(t *testing.T) {
	p := newProject(t, planConfig)
	path := requirements.Locate(p.root).MetricsPath(key)
	read := func() map[string]any {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	p.hook(map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	m := read()
	if m["version"] != "1.0" || m["session_id"] != key || m["branch"] != "feature/auth" || m["ended_at"] != nil {
		t.Fatalf("created = %v", m)
	}
	// Something another writer added survives.
	m["learnings"].(map[string]any)["user_feedback"] = "kept"
	data, _ := json.Marshal(m)
	os.WriteFile(path, data, 0o644)

	p.pre("Write", map[string]any{"file_path": "x.go"}) // denied: design_ok and commit_plan
	p.post("Skill", map[string]any{"skill": "design-check"}, map[string]any{"success": true})
	m = read()
	reqs := m["requirements"].(map[string]any)
	d := reqs["design_ok"].(map[string]any)
	if d["blocked_count"] != 1.0 || d["satisfied_by"] != "skill" || d["time_to_satisfy_seconds"] != 1.0 {
		t.Errorf("design_ok = %v", d)
	}
	if c := reqs["commit_plan"].(map[string]any); c["blocked_count"] != 1.0 || c["satisfied_at"] != nil {
		t.Errorf("commit_plan = %v", c)
	}
	if s := m["skills"].([]any); len(s) != 1 || s[0].(map[string]any)["name"] != "design-check" {
		t.Errorf("skills = %v", s)
	}

	// The learning prompt: not before more than 5 tool calls, then once.
	if out := p.stop(false); strings.Contains(out, "session-reflect") {
		t.Fatalf("prompted early: %s", out)
	}
	for i := 0; i < 6; i++ {
		p.post("Read", map[string]any{"file_path": "a.txt"}, map[string]any{})
	}
	out := p.stop(false)
	if !strings.Contains(out, "Run `/session-reflect`") {
		t.Fatalf("Stop answer = %s", out)
	}
	if out := p.stop(false); strings.Contains(out, "session-reflect") {
		t.Errorf("prompted twice: %s", out)
	}
	m = read()
	if m["learnings"].(map[string]any)["reflect_prompted_at"] == nil || m["learnings"].(map[string]any)["user_feedback"] != "kept" {
		t.Errorf("learnings = %v", m["learnings"])
	}
	if r := m["tools"].(map[string]any)["Read"].(map[string]any); r["count"] != 6.0 {
		t.Errorf("tools = %v", m["tools"])
	}
	p.hook(map[string]any{"hook_event_name": "SessionEnd", "reason": "other"})
	m = read()
	if m["ended_at"] == nil || m["duration_seconds"] == nil || m["duration_seconds"].(float64) <= 0 {
		t.Errorf("finalized = %v %v", m["ended_at"], m["duration_seconds"])
	}
}

// stopBlocker blocks every Stop while on: another gate than the
// requirements framework's.
type stopBlocker struct{ on *bool }

func (stopBlocker) Name() string     { return "blocker" }
func (stopBlocker) FailClosed() bool { return false }
func (b stopBlocker) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if in.Name != hookio.Stop || !*b.on {
		return nil, nil
	}
	return []gate.Verdict{{Decision: gate.Block, Reason: "not yet", Message: "run the tests"}}, nil
}

// /session-reflect is suggested at a Stop that goes through: a Stop another
// gate blocks neither shows it nor spends its one chance, and a Stop let
// through after the block shows it.
func TestReflectPromptWaitsForAStopThatGoesThrough(t *testing.T) {
	p := newProject(t, planConfig)
	blocking := true
	stop := func() string {
		t.Helper()
		in, _ := json.Marshal(map[string]any{"hook_event_name": "Stop", "session_id": sid, "cwd": p.root})
		var out, errOut bytes.Buffer
		p.now = p.now.Add(time.Second)
		now := p.now
		code := recorder.Run(context.Background(), recorder.Options{
			Stdin: bytes.NewReader(in), Stdout: &out, Stderr: &errOut,
			Getenv: func(k string) string { return p.env[k] },
			Now:    func() time.Time { return now },
			Alive:  func(int) bool { return true },
			Gates: func(s gate.Setup) []gate.Gate {
				return []gate.Gate{requirements.NewGate(s), stopBlocker{on: &blocking}}
			},
		})
		if code != 0 || errOut.Len() > 0 {
			t.Fatalf("exit %d, stderr %s", code, errOut.String())
		}
		return out.String()
	}
	for i := 0; i < 6; i++ {
		p.post("Read", map[string]any{"file_path": "a.txt"}, map[string]any{})
	}
	out := stop()
	if !strings.Contains(out, `"decision":"block"`) || strings.Contains(out, "session-reflect") {
		t.Fatalf("blocked Stop answered %s", out)
	}
	if _, err := os.Stat(requirements.Locate(p.root).MetricsPath(key)); err == nil {
		data, _ := os.ReadFile(requirements.Locate(p.root).MetricsPath(key))
		if strings.Contains(string(data), "reflect_prompted_at") {
			t.Fatalf("the blocked Stop spent the prompt: %s", data)
		}
	}
	blocking = false
	if out := stop(); !strings.Contains(out, "Run `/session-reflect`") {
		t.Fatalf("Stop that goes through answered %s", out)
	}
	if out := stop(); strings.Contains(out, "session-reflect") {
		t.Errorf("prompted twice: %s", out)
	}
}
