package recorder

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

const sid = "61d1bf36-be5c-4105-a3b5-9191266d28a0"

func withSID(payload string) string {
	return strings.Replace(payload, `"session_id":"sess"`, `"session_id":"`+sid+`"`, 1)
}

func TestRunNotAProject(t *testing.T) {
	p := newProject(t)
	_ = os.RemoveAll(filepath.Join(p.root, state.DirName))
	before := tree(t, p.root)
	out, _ := p.run([]byte(withSID(start("startup"))), "")
	if out != "" || strings.Join(tree(t, p.root), "\n") != strings.Join(before, "\n") {
		t.Errorf("recorded outside a spcstr project: out %q, tree %v", out, tree(t, p.root))
	}
	if _, err := os.Stat(p.reg); err == nil {
		t.Error("registry written for a project without .spcstr")
	}
	// SPCSTR_AUTO_INIT=1 creates .spcstr and records.
	p.env["SPCSTR_AUTO_INIT"] = "1"
	p.run([]byte(withSID(start("startup"))), "")
	if s := p.state(sid); s.EventCounts["SessionStart"] != 1 || s.ProjectDir != p.root {
		t.Errorf("auto-init: %+v", s)
	}
}

// The root follows the payload's cwd when CLAUDE_PROJECT_DIR is not set.
func TestRunRootFromCwd(t *testing.T) {
	p := newProject(t)
	delete(p.env, "CLAUDE_PROJECT_DIR")
	sub := filepath.Join(p.root, "src", "pkg")
	_ = os.MkdirAll(sub, 0o755)
	p.run([]byte(fmt.Sprintf(`{"hook_event_name":"PostToolUse","session_id":%q,"cwd":%q,"tool_name":"Read","tool_input":{"file_path":%q}}`,
		sid, sub, filepath.Join(sub, "x.go"))), "")
	s := p.state(sid)
	if s.Cwd != sub || strings.Join(s.Files.Read, ",") != "src/pkg/x.go" || s.ProjectDir != p.root {
		t.Errorf("cwd %q files %v project %q", s.Cwd, s.Files.Read, s.ProjectDir)
	}
	if _, err := os.Stat(filepath.Join(sub, state.DirName)); err == nil {
		t.Error(".spcstr created in the subfolder")
	}
}

func TestRunRejects(t *testing.T) {
	tests := []struct {
		name, payload, event, reason string
	}{
		{"empty stdin", "", "", "not a hook payload"},
		{"array", `[{"session_id":"s","hook_event_name":"Stop"}]`, "", "not a hook payload"},
		{"garbage", "\x00\xffnot json", "", "not a hook payload"},
		{"malformed", `{"session_id":"s",`, "", "not a hook payload"},
		{"no event name", `{"session_id":"s"}`, "", "no usable event name"},
		{"bad event name", `{"session_id":"s","hook_event_name":"../../x"}`, "", "no usable event name"},
		{"missing id", `{"hook_event_name":"Stop"}`, "", "missing session_id"},
		{"number id", `{"hook_event_name":"Stop","session_id":42}`, "", "missing session_id"},
		{"traversal id", `{"hook_event_name":"Stop","session_id":"../../etc"}`, "", "invalid session_id"},
		{"absolute id", `{"hook_event_name":"Stop","session_id":"/tmp/x"}`, "", "invalid session_id"},
		{"NUL id", `{"hook_event_name":"Stop","session_id":"a\u0000b"}`, "", "invalid session_id"},
		{"long id", `{"hook_event_name":"Stop","session_id":"` + strings.Repeat("a", 300) + `"}`, "", "invalid session_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t)
			out, errOut := p.run([]byte(tt.payload), tt.event)
			if out != "" {
				t.Errorf("stdout %q", out)
			}
			if !strings.Contains(errOut, "rejected") {
				t.Errorf("stderr %q", errOut)
			}
			rej := p.log(logs.Name(logs.Rejected, ""))
			if len(rej) != 1 || !strings.Contains(fmt.Sprint(rej[0]["reason"]), tt.reason) {
				t.Fatalf("rejected.json = %v, want reason %q", rej, tt.reason)
			}
			if id, ok := rej[0]["session_id"].(string); ok && len(id) > 300 {
				t.Errorf("rejected session_id not bounded: %d", len(id))
			}
			got := outside(tree(t, p.root))
			all := tree(t, p.layout().Dir())
			for _, f := range all {
				if f != "./" && f != "logs/" && f != "logs/rejected.json" && f != "logs/.rejected.json.lock" && f != "logs/.inflight.slots" {
					t.Errorf("written besides rejected.json: %s", f)
				}
			}
			if len(got) != 0 {
				t.Errorf("written outside .spcstr: %v", got)
			}
			if _, err := os.Stat(p.reg); err == nil {
				t.Error("registry touched by a rejected payload")
			}
		})
	}
}

func TestRunEventNameSources(t *testing.T) {
	p := newProject(t)
	p.run([]byte(`{"session_id":"`+sid+`"}`), "session_start")
	p.run([]byte(`{"session_id":"`+sid+`"}`), "UserPromptSubmit")
	p.run([]byte(`{"session_id":"`+sid+`","hook_event_name":"Stop"}`), "pre_tool_use") // payload wins
	p.run([]byte(`{"session_id":"`+sid+`","hook_event_name":"BrandNewEvent","x":1}`), "")
	s := p.state(sid)
	want := map[string]int{"SessionStart": 1, "UserPromptSubmit": 1, "Stop": 1, "BrandNewEvent": 1}
	if fmt.Sprint(s.EventCounts) != fmt.Sprint(want) {
		t.Errorf("event counts %v", s.EventCounts)
	}
	for snake, n := range map[string]int{"session_start": 1, "user_prompt_submit": 1, "stop": 1, "brand_new_event": 1, "pre_tool_use": 0} {
		if got := len(p.log(snake)); got != n {
			t.Errorf("%s.json: %d entries, want %d", snake, got, n)
		}
	}
}

func TestRunLogEntry(t *testing.T) {
	p := newProject(t)
	payload := withSID(post("Read", "t1", file(p.root+"/a.go"), `{"type":"text"}`))
	p.run([]byte(payload), "")
	entries := p.log("post_tool_use")
	if len(entries) != 1 {
		t.Fatalf("entries = %v", entries)
	}
	e := entries[0]
	in, _ := e["input"].(map[string]any)
	if e["event"] != "PostToolUse" || e["session_id"] != sid || e["timestamp"] != "2026-05-01T10:00:01Z" ||
		in["tool_name"] != "Read" || in["tool_use_id"] != "t1" {
		t.Errorf("entry = %v", e)
	}
	out, _ := e["outcome"].(map[string]any)
	if _, ok := out["duration_ms"].(float64); !ok || out["error"] != nil || out["answer"] != nil {
		t.Errorf("outcome = %v", out)
	}
	if _, ok := e["truncated"]; ok {
		t.Error("small payload marked truncated")
	}
}

// (The 10 MB prompt goes through the real binary in TestHostileInput.)
func TestRunCapsHugePrompt(t *testing.T) {
	p := newProject(t)
	huge := strings.Repeat("z", 2<<20)
	p.run([]byte(withSID(prompt(huge))), "")
	e := p.log("user_prompt_submit")[0]
	tr, _ := e["truncated"].(map[string]any)
	if tr["prompt"] != float64(len(huge)+2) {
		t.Errorf("truncated = %v", e["truncated"])
	}
	if in := e["input"].(map[string]any); len(in["prompt"].(string)) > 70<<10 {
		t.Errorf("logged prompt %d bytes", len(in["prompt"].(string)))
	}
	s := p.state(sid)
	if !s.Prompts[0].Truncated || len(s.Prompts[0].Prompt) > 64<<10 {
		t.Errorf("state prompt %d bytes, truncated %v", len(s.Prompts[0].Prompt), s.Prompts[0].Truncated)
	}
	if fi, _ := os.Stat(p.layout().LogPath("user_prompt_submit")); fi.Size() > 100<<10 {
		t.Errorf("log is %d bytes", fi.Size())
	}
}

func TestRunRegistry(t *testing.T) {
	p := newProject(t)
	p.env["CLAUDE_PID"] = "4242"
	p.run([]byte(withSID(start("startup"))), "")
	f := registry.Load(p.reg)
	e, ok := f.Lookup(sid)
	if !ok || e.PPID != 4242 || e.ProjectDir != p.root || e.SessionID != sid || e.PID != os.Getpid() {
		t.Fatalf("registered entry = %+v, %v", e, ok)
	}
	// last_active: refreshed by the session's second event (which
	// confirms the registration) and its first event of a minute, not by
	// every event.
	p.run([]byte(withSID(prompt("w"))), "")
	started := registry.Now(p.now)
	if e, _ := registry.Load(p.reg).Lookup(sid); e.LastActive != started {
		t.Errorf("the second event did not refresh last_active: %v, want %v", e.LastActive, started)
	}
	p.run([]byte(withSID(prompt("x"))), "") // the same minute
	if e, _ := registry.Load(p.reg).Lookup(sid); e.LastActive != started {
		t.Errorf("last_active moved within the minute: %v → %v", started, e.LastActive)
	}
	p.now = p.now.Add(time.Minute)
	p.run([]byte(withSID(prompt("y"))), "")
	if e, _ := registry.Load(p.reg).Lookup(sid); e.LastActive != registry.Now(p.now) {
		t.Errorf("last_active = %v, want %v", e.LastActive, registry.Now(p.now))
	}
	p.run([]byte(withSID(sessionEnd)), "")
	if _, ok := registry.Load(p.reg).Lookup(sid); ok {
		t.Error("SessionEnd left the session registered")
	}
	// The first event of a session never seen (hooks installed mid-session)
	// registers it too.
	other := "bbbbbbbb-0000"
	p.run([]byte(strings.Replace(prompt("x"), `"sess"`, `"`+other+`"`, 1)), "")
	if _, ok := registry.Load(p.reg).Lookup(other); !ok {
		t.Error("unseen session not registered")
	}
}

func TestRunTranscriptTokens(t *testing.T) {
	p := newProject(t)
	tp := filepath.Join(t.TempDir(), "t.jsonl")
	ss := fmt.Sprintf(`{"hook_event_name":"SessionStart","session_id":%q,"source":"startup","transcript_path":%q,"model":"claude-opus-4-1[1m]"}`, sid, tp)
	p.run([]byte(ss), "") // the transcript does not exist yet
	if s := p.state(sid); len(s.Errors) != 0 || s.Tokens.Input != 0 || s.Tokens.ContextWindow != 1_000_000 {
		t.Fatalf("at SessionStart: %+v %+v", s.Errors, s.Tokens)
	}
	_ = os.WriteFile(tp, []byte(assistantLineFor("m1", 10, 5, 100, 7)+assistantLineFor("m1", 10, 50, 100, 7)), 0o644)
	p.run([]byte(withSID(prompt("x"))), "")
	f, _ := os.OpenFile(tp, os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(assistantLineFor("m1", 10, 80, 100, 7) + assistantLineFor("m2", 1, 1, 200, 0))
	f.Close()
	p.run([]byte(withSID(stop)), "")
	tok := p.state(sid).Tokens
	if tok.Input != 11 || tok.Output != 81 || tok.CacheRead != 300 || tok.CacheCreation != 7 || tok.ContextUsed != 201 {
		t.Errorf("tokens = %+v", tok)
	}
}

func assistantLineFor(id string, in, out, cr, cc int) string {
	return fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"model":"m","usage":{"input_tokens":%d,"output_tokens":%d,"cache_read_input_tokens":%d,"cache_creation_input_tokens":%d}}}`+"\n", id, in, out, cr, cc)
}

func TestRunBadConfig(t *testing.T) {
	p := newProject(t)
	_ = os.WriteFile(p.layout().ConfigPath(), []byte("logs: [unclosed\n"), 0o644)
	_, errOut := p.run([]byte(withSID(prompt("x"))), "")
	s := p.state(sid)
	if len(s.Prompts) != 1 || len(s.Errors) != 1 || s.Errors[0].Type != state.ErrorSpcstr || !strings.Contains(s.Errors[0].Message, "config.yaml") {
		t.Errorf("state: prompts %d errors %+v", len(s.Prompts), s.Errors)
	}
	if !strings.Contains(errOut, "config.yaml") {
		t.Errorf("stderr %q", errOut)
	}
	out := p.log("user_prompt_submit")[0]["outcome"].(map[string]any)
	if !strings.Contains(fmt.Sprint(out["error"]), "config.yaml") {
		t.Errorf("outcome = %v", out)
	}
}

// fakeGate answers with fn; closed sets fail_mode closed.
type fakeGate struct {
	name   string
	closed bool
	fn     func(in *gate.Input) ([]gate.Verdict, error)
}

func (g *fakeGate) Name() string     { return g.name }
func (g *fakeGate) FailClosed() bool { return g.closed }
func (g *fakeGate) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	return g.fn(in)
}

func withGates(p *project, gs ...gate.Gate) {
	p.gates = func(gate.Setup) []gate.Gate { return gs }
}

func blockStops(name string) *fakeGate {
	return &fakeGate{name: name, fn: func(in *gate.Input) ([]gate.Verdict, error) {
		if in.Name != "Stop" {
			return nil, nil
		}
		return []gate.Verdict{{Source: name, Decision: gate.Block, Reason: "unsatisfied:tests", Message: "Run the tests first."}}, nil
	}}
}

func TestStopGuard(t *testing.T) {
	p := newProject(t)
	withGates(p, blockStops("req"))
	p.runAll(withSID(start("startup")), withSID(prompt("go")))
	stopOut := func() string {
		out, _ := p.run([]byte(withSID(stop)), "")
		return out
	}
	const block = `{"decision":"block","reason":"Run the tests first."}` + "\n"
	for i := 1; i <= 3; i++ {
		if out := stopOut(); out != block {
			t.Fatalf("stop %d: %q", i, out)
		}
	}
	out := stopOut()
	if strings.Contains(out, `"decision"`) || !strings.Contains(out, "blocked 3 stops in a row") || !strings.Contains(out, "Run the tests first.") {
		t.Fatalf("4th stop not escalated: %q", out)
	}
	if out := stopOut(); strings.Contains(out, `"decision"`) {
		t.Fatalf("5th stop without progress blocked: %q", out)
	}
	// Progress (a finished tool call) lets the gate block again.
	p.runAll(withSID(post("Bash", "b", `{}`, `{}`)))
	if out := stopOut(); out != block {
		t.Fatalf("stop after progress: %q", out)
	}
	recs := p.log("decisions")
	if len(recs) != 6 {
		t.Fatalf("decisions = %d", len(recs))
	}
	var escalated int
	for _, r := range recs {
		if r["hook"] != "Stop" || r["source"] != "req" || r["session_id"] != sid || r["request_id"] == "" {
			t.Errorf("record = %v", r)
		}
		if strings.HasPrefix(fmt.Sprint(r["reason"]), "escalated:") {
			escalated++
			if r["decision"] != "escalated" || r["enforcement"] != "gave-way" {
				t.Errorf("escalated record = %v", r)
			}
		}
	}
	if escalated != 2 {
		t.Errorf("escalated records = %d", escalated)
	}
	// A Stop the gate allows resets its count.
	p2 := newProject(t)
	allow := false
	g := blockStops("req")
	inner := g.fn
	g.fn = func(in *gate.Input) ([]gate.Verdict, error) {
		if allow {
			return nil, nil
		}
		return inner(in)
	}
	withGates(p2, g)
	for i := 0; i < 3; i++ {
		p2.run([]byte(withSID(stop)), "")
	}
	allow = true
	p2.run([]byte(withSID(stop)), "")
	allow = false
	if out, _ := p2.run([]byte(withSID(stop)), ""); out != block {
		t.Errorf("after an allowed stop: %q", out)
	}
	if gs := p2.state(sid).Gates["req/Stop"]; gs.StopBlocks != 1 {
		t.Errorf("gate state = %+v", gs)
	}
}

func TestGateFailures(t *testing.T) {
	boom := errors.New("config unreadable")
	tests := []struct {
		name   string
		g      *fakeGate
		event  string
		answer string
		dec    string
	}{
		{"error fails open", &fakeGate{name: "g", fn: func(*gate.Input) ([]gate.Verdict, error) { return nil, boom }}, stop, "g could not decide (config unreadable); its fail_mode is open", "allow"},
		{"panic fails open", &fakeGate{name: "g", fn: func(*gate.Input) ([]gate.Verdict, error) { panic("nil map") }}, stop, "g could not decide (panic: nil map)", "allow"},
		{"closed gate blocks Stop", &fakeGate{name: "g", closed: true, fn: func(*gate.Input) ([]gate.Verdict, error) { return nil, boom }}, stop,
			`"decision":"block"`, "block"},
		{"closed gate denies PreToolUse", &fakeGate{name: "g", closed: true, fn: func(*gate.Input) ([]gate.Verdict, error) { return nil, boom }},
			pre("Bash", "b", `{}`), `"permissionDecision":"deny"`, "deny"},
		{"closed gate cannot block a Notification", &fakeGate{name: "g", closed: true, fn: func(*gate.Input) ([]gate.Verdict, error) { return nil, boom }},
			`{"hook_event_name":"Notification","session_id":"sess","message":"m"}`, "Notification cannot be blocked", "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t)
			withGates(p, tt.g)
			out, errOut := p.run([]byte(withSID(tt.event)), "")
			if (tt.answer == "") != (out == "") || !strings.Contains(out, tt.answer) {
				t.Errorf("answer %q, want %q", out, tt.answer)
			}
			if !strings.Contains(errOut, "g failed") {
				t.Errorf("stderr %q", errOut)
			}
			s := p.state(sid)
			if len(s.Errors) != 1 || s.Errors[0].Type != state.ErrorSpcstr {
				t.Errorf("errors = %+v", s.Errors)
			}
			recs := p.log("decisions")
			if len(recs) != 1 || recs[0]["decision"] != tt.dec || recs[0]["error"] == nil {
				t.Errorf("decisions = %v", recs)
			}
		})
	}
}

func TestDryRun(t *testing.T) {
	for _, how := range []string{"env", "config"} {
		t.Run(how, func(t *testing.T) {
			p := newProject(t)
			if how == "env" {
				p.env["SPCSTR_DRY_RUN"] = "1"
			} else {
				_ = os.WriteFile(p.layout().ConfigPath(), []byte("dry_run: true\n"), 0o644)
			}
			g := blockStops("req")
			ctxGate := &fakeGate{name: "ctx", fn: func(in *gate.Input) ([]gate.Verdict, error) {
				return []gate.Verdict{{Source: "ctx", Decision: gate.Deny, Message: "no", SystemMessage: "heads up"}}, nil
			}}
			withGates(p, g, ctxGate)
			out, _ := p.run([]byte(withSID(stop)), "")
			// Nothing enforced; the deny's own message (which announces
			// the deny) gives way to what would have been done.
			if strings.Contains(out, `"decision"`) || strings.Contains(out, "permissionDecision") || strings.Contains(out, "heads up") ||
				!strings.Contains(out, "spcstr dry run: req would block this stop") || !strings.Contains(out, "spcstr dry run: ctx would deny this stop") {
				t.Errorf("dry run answered %q", out)
			}
			recs := p.log("decisions")
			if len(recs) != 2 || recs[0]["dry_run"] != true || recs[0]["decision"] != "block" || recs[1]["decision"] != "deny" {
				t.Errorf("decisions = %v", recs)
			}
		})
	}
}

// A denied Agent call spawns no agent: its history entry is dropped.
func TestDeniedAgentCallDropped(t *testing.T) {
	p := newProject(t)
	withGates(p, &fakeGate{name: "req", fn: func(in *gate.Input) ([]gate.Verdict, error) {
		if in.Name == "PreToolUse" && in.Event.ToolName == "Agent" {
			return []gate.Verdict{{Source: "req", Decision: gate.Deny, Message: "no agents"}}, nil
		}
		return nil, nil
	}})
	in := agentIn("reviewer", "r", false)
	out, _ := p.run([]byte(withSID(pre("Agent", "tu1", in))), "")
	if !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("answer %q", out)
	}
	s := p.state(sid)
	if len(s.AgentsHistory) != 0 || len(s.Agents) != 0 {
		t.Errorf("denied agent recorded: %+v %v", s.AgentsHistory, s.Agents)
	}
	// Gates see the state with the event applied.
	var seen int
	withGates(p, &fakeGate{name: "x", fn: func(in *gate.Input) ([]gate.Verdict, error) {
		seen = in.Session.ToolsUsed["Bash"]
		return nil, nil
	}})
	p.run([]byte(withSID(post("Bash", "b", `{}`, `{}`))), "")
	if seen != 1 {
		t.Errorf("gate saw tools_used Bash = %d", seen)
	}
}

// TestRunRemovesStaleTemps: a hook killed between creating its temp state
// file and renaming it leaves ".state.json<digits>"; the session's next
// touch (its first event of a minute) removes it once it is a minute old,
// and leaves a fresh one (a live writer's) alone.
func TestRunRemovesStaleTemps(t *testing.T) {
	p := newProject(t)
	p.run([]byte(withSID(start("startup"))), "")
	dir, _ := p.layout().SessionDir(sid)
	stale, fresh := filepath.Join(dir, ".state.json12345"), filepath.Join(dir, ".state.json67890")
	for _, f := range []string{stale, fresh} {
		if err := os.WriteFile(f, []byte(`{"half":`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Minute)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	p.now = p.now.Add(time.Minute)
	p.run([]byte(withSID(prompt("next minute"))), "")
	if _, err := os.Lstat(stale); err == nil {
		t.Error("the stale temp file was not removed")
	}
	if _, err := os.Lstat(fresh); err != nil {
		t.Errorf("the fresh temp file was removed: %v", err)
	}
}
