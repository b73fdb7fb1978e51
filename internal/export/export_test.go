package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/export"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

var t0 = time.Date(2026, 11, 20, 14, 0, 0, 0, time.UTC)

// project is a scratch project written with the core packages' own writers.
type project struct {
	t *testing.T
	l state.Layout
}

func newProject(t *testing.T) *project {
	t.Helper()
	l := state.Layout{Root: filepath.Join(t.TempDir(), "proj")}
	if err := os.MkdirAll(l.LogsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	return &project{t: t, l: l}
}

func (p *project) session(s *state.Session) {
	p.t.Helper()
	path, err := p.l.StatePath(s.SessionID)
	if err != nil {
		p.t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := jsonfile.WriteJSON(path, s); err != nil {
		p.t.Fatal(err)
	}
}

// event appends one entry to the event's log as the recorder does.
func (p *project) event(log, id, event string, at time.Time, payload string, out *logs.Outcome) {
	p.t.Helper()
	e := logs.Entry{Timestamp: at, SessionID: id, Event: event, Input: json.RawMessage(payload), Outcome: out}
	data, err := e.Encode()
	if err != nil {
		p.t.Fatal(err)
	}
	if err := logs.Append(context.Background(), p.l.LogPath(log), data, logs.Options{}); err != nil {
		p.t.Fatal(err)
	}
}

func (p *project) decision(r gate.Record) {
	p.t.Helper()
	data, _ := json.Marshal(r)
	if err := logs.Append(context.Background(), p.l.LogPath(logs.Name(logs.Decisions, "")), data, logs.Options{}); err != nil {
		p.t.Fatal(err)
	}
}

func newSession(id string, updated time.Time) *state.Session {
	s := state.New(id, "/proj", updated.Add(-time.Hour))
	s.UpdatedAt = updated
	return s
}

func TestSelect(t *testing.T) {
	p := newProject(t)
	p.session(newSession("aaaa1111-0000", t0.Add(1*time.Minute)))
	p.session(newSession("aaaa2222-0000", t0.Add(3*time.Minute)))
	p.session(newSession("bbbb3333-0000", t0.Add(2*time.Minute)))
	// A folder without state.json is no session.
	if err := os.MkdirAll(filepath.Join(p.l.SessionsDir(), "cccc-empty"), 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		sel     export.Selector
		want    []string
		wantErr error
		errHas  []string
	}{
		{name: "latest by updated_at", sel: export.Selector{}, want: []string{"aaaa2222-0000"}},
		{name: "all newest first", sel: export.Selector{All: true}, want: []string{"aaaa2222-0000", "bbbb3333-0000", "aaaa1111-0000"}},
		{name: "exact id", sel: export.Selector{ID: "aaaa1111-0000"}, want: []string{"aaaa1111-0000"}},
		{name: "unique prefix", sel: export.Selector{ID: "bb"}, want: []string{"bbbb3333-0000"}},
		{name: "ambiguous prefix lists candidates", sel: export.Selector{ID: "aaaa"}, wantErr: export.ErrAmbiguous,
			errHas: []string{"aaaa1111-0000", "aaaa2222-0000", "matches 2 sessions"}},
		{name: "unknown lists recent", sel: export.Selector{ID: "zz"}, wantErr: export.ErrUnknownSession,
			errHas: []string{`"zz"`, "aaaa2222-0000"}},
		{name: "folder without state is not a session", sel: export.Selector{ID: "cccc"}, wantErr: export.ErrUnknownSession},
		{name: "hostile id", sel: export.Selector{ID: "../../etc"}, wantErr: export.ErrUnknownSession, errHas: []string{"not a session id"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := export.Select(p.l, tc.sel)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				for _, s := range tc.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q lacks %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSelectEmpty(t *testing.T) {
	l := state.Layout{Root: t.TempDir()}
	if _, err := export.Select(l, export.Selector{}); !errors.Is(err, export.ErrNoProject) {
		t.Errorf("no .spcstr: err = %v", err)
	}
	if err := os.MkdirAll(l.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := export.Select(l, export.Selector{}); !errors.Is(err, export.ErrNoSessions) {
		t.Errorf("no sessions: err = %v", err)
	}
}

// TestScanFiltersAndLayouts checks the streaming reader: only the session's
// entries count, whatever layout or rotation the logs have, and a torn tail
// or a payload that mimics the envelope does not fool it.
func TestScanFiltersAndLayouts(t *testing.T) {
	const id, other = "sess-1", "sess-10" // other starts with id: the byte check must see the closing quote
	p := newProject(t)
	s := newSession(id, t0.Add(time.Hour))
	s.EventCounts = map[string]int{"PreToolUse": 4, "PostToolUse": 2, "Stop": 1, "SessionStart": 1}
	p.session(s)
	out := func(ms float64) *logs.Outcome { return &logs.Outcome{DurationMS: ms} }
	p.event("pre_tool_use", id, "PreToolUse", t0.Add(1*time.Second), `{"session_id":"sess-1","tool_name":"Bash"}`, out(1))
	p.event("pre_tool_use", other, "PreToolUse", t0.Add(2*time.Second), `{"session_id":"sess-10","tool_name":"Bash"}`, out(50))
	// A payload holding a nested "outcome" object, and a mention of the id.
	p.event("pre_tool_use", id, "PreToolUse", t0.Add(3*time.Second), `{"tool_input":{"x":{"outcome":{"duration_ms":999}}},"note":"sess-1"}`, out(2))
	p.event("pre_tool_use", other, "PreToolUse", t0.Add(4*time.Second), `{"note":"\"session_id\":\"sess-1\""}`, out(60))
	// Rotation: an older file holds earlier entries.
	if err := os.Rename(p.l.LogPath("pre_tool_use"), p.l.LogPath("pre_tool_use.1")); err != nil {
		t.Fatal(err)
	}
	p.event("pre_tool_use", id, "PreToolUse", t0.Add(5*time.Second), `{}`, out(3))
	// A torn tail (a crash mid-append) is skipped.
	f, err := os.OpenFile(p.l.LogPath("pre_tool_use"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	_, _ = f.WriteAt([]byte(",\n{\"timestamp\":\"2026-11-20T14:00:09Z\",\"session_id\":\"sess-1\",\"ev"), fi.Size()-3)
	f.Close()
	// A pretty-printed log (hand-edited) goes through the general decoder.
	pretty := `[
  {
    "timestamp": "2026-11-20T14:00:06Z",
    "session_id": "sess-1",
    "event": "PostToolUse",
    "input": {"tool_name": "Read"},
    "outcome": {"duration_ms": 4, "answer": {"continue": true}},
    "truncated": {"tool_response": 100000}
  },
  {"timestamp": "2026-11-20T14:00:07Z", "session_id": "sess-10", "event": "PostToolUse", "input": {}},
  {"timestamp": "2026-11-20T14:00:07.5Z", "session_id": "sess-1", "event": "PostToolUse", "input": {}, "outcome": {"duration_ms": 5, "error": "boom"}}
]
`
	if err := os.WriteFile(p.l.LogPath("post_tool_use"), []byte(pretty), 0o644); err != nil {
		t.Fatal(err)
	}
	// An agent call made inside a subagent (for the tree).
	p.event("pre_tool_use", id, "PreToolUse", t0.Add(8*time.Second),
		`{"tool_name":"Agent","tool_use_id":"toolu_child","agent_id":"aparent"}`, out(6))
	p.event("stop", id, "Stop", t0.Add(9*time.Second), `{}`, out(7))
	// Logs that are not this session's events.
	p.event("rejected", id, "PreToolUse", t0, `{}`, out(100))
	p.decision(gate.Record{SessionID: other, Timestamp: t0, Source: "x", Hook: "Stop", Decision: "block"})
	p.decision(gate.Record{SessionID: id, Timestamp: t0.Add(9 * time.Second), Source: "req", Hook: "Stop", Decision: "block", Reason: "r"})
	p.decision(gate.Record{SessionID: id, Timestamp: t0.Add(2 * time.Second), Source: "req", Hook: "PreToolUse", Decision: "deny", DryRun: true})
	p.decision(gate.Record{SessionID: id, Timestamp: t0.Add(3 * time.Second), Source: "tb", Hook: "PreToolUse", Decision: "allow", Error: "broken"})

	s.AgentsHistory = []state.Agent{
		{Name: "parent", AgentID: "aparent", ToolUseID: "toolu_parent", StartedAt: t0},
		{Name: "child", AgentID: "achild", ToolUseID: "toolu_child", StartedAt: t0.Add(time.Second)},
	}
	p.session(s)

	sum, err := export.Build(context.Background(), p.l, id, export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := sum.Events
	if e.Logged != 7 {
		t.Errorf("logged = %d, want 7 (by type %v)", e.Logged, e.ByType)
	}
	if e.Counted != 8 {
		t.Errorf("counted = %d, want 8", e.Counted)
	}
	if e.HookMS.Max != 7 || e.HookMS.Total != 28 {
		t.Errorf("hook ms = %+v, want max 7 total 28 (other sessions and payload look-alikes excluded)", e.HookMS)
	}
	// 7 calls are too few for a 95th percentile: none is reported.
	if e.HookMS.P95 != nil {
		t.Errorf("hook ms p95 = %v for %d calls, want none below %d", *e.HookMS.P95, e.Logged, export.MinCallsForP95)
	}
	if e.Answers != 1 || e.TruncatedPayloads != 1 || e.HookErrors != 1 {
		t.Errorf("answers %d truncated %d errors %d, want 1 1 1", e.Answers, e.TruncatedPayloads, e.HookErrors)
	}
	if e.FirstAt == nil || !e.FirstAt.Equal(t0.Add(time.Second)) || !e.LastAt.Equal(t0.Add(9*time.Second)) {
		t.Errorf("first/last = %v/%v", e.FirstAt, e.LastAt)
	}
	d := sum.Decisions
	if len(d.Timeline) != 3 || d.Blocks != 1 || d.Denies != 1 || d.Errors != 1 || d.Allows != 0 || d.DryRun != 1 {
		t.Errorf("decisions = %+v", d)
	}
	if len(d.Timeline) == 3 && (d.Timeline[0].Hook != "PreToolUse" || d.Timeline[2].Hook != "Stop") {
		t.Errorf("timeline not in time order: %+v", d.Timeline)
	}
	if len(sum.Agents) != 1 || len(sum.Agents[0].Children) != 1 || sum.Agents[0].Children[0].Name != "child" {
		t.Errorf("agent tree = %+v", sum.Agents)
	}
}

// fakeSources stand in for the requirements and feedback packages.
var fakeSources = export.Sources{
	Requirements: func(_ context.Context, _ state.Layout, s *state.Session) ([]export.ReqStatus, error) {
		at := t0.Add(20 * time.Minute)
		return []export.ReqStatus{
			{Name: "commit_plan", Scope: "session", Enabled: true, Triggered: true, Satisfied: true, SatisfiedBy: "requirements-framework:plan", SatisfiedAt: &at},
			{Name: "adr_reviewed", Scope: "branch", Enabled: true, Triggered: true, Message: "Run /arch-review before editing code."},
			{Name: "pre_commit_review", Scope: "single_use"},
		}, nil
	},
	FeedbackLoop: func(_ context.Context, _ state.Layout, s *state.Session) (*export.FeedbackLoop, error) {
		start := t0.Add(5 * time.Minute)
		return &export.FeedbackLoop{
			State: "active", Active: true, Iteration: 2, MaxIterations: 5, Loops: 1, StartedAt: &start,
			Domains: []export.FeedbackDomain{
				{Name: "backend", Review: export.PhasePass, TestPlanning: export.PhasePass, Testing: export.PhaseFail, Files: []string{"api/server.go"}},
				{Name: "frontend", Review: export.PhaseNotRun, TestPlanning: export.PhaseNotRun, Testing: export.PhaseNotRun},
			},
			History: []export.FeedbackHistItem{
				{At: start, Kind: "started", Iteration: 1, Domain: "backend", Note: "api/server.go"},
				{At: t0.Add(9 * time.Minute), Kind: "result", Iteration: 1, Domain: "backend", Phase: "review", Agent: "code-reviewer", Marker: "REVIEW_APPROVED", Status: "PASS"},
				{At: t0.Add(15 * time.Minute), Kind: "reset", Iteration: 2, Domain: "backend", Phase: "testing", Agent: "tester", Marker: "TESTS_FAILED", Status: "FAIL", Note: "2 tests failed | see output"},
			},
		}, nil
	},
}

// TestGoldenSynthetic covers what the captured runs do not: requirements
// and feedback loop through Sources, nested and background agents, a live
// session, dry-run and failed decisions, Markdown-hostile text.
func TestGoldenSynthetic(t *testing.T) {
	const id = "5e55-synthetic"
	p := newProject(t)
	s := newSession(id, t0.Add(30*time.Minute))
	s.CreatedAt = t0
	s.Status, s.SessionActive = state.StatusWorking, true
	s.Branch, s.Model, s.ProjectDir = "feature/export", "claude-opus-4-5", p.l.Root
	s.LastEventAt = t0.Add(30 * time.Minute)
	s.Tokens = state.Tokens{Input: 1200, Output: 34567, CacheRead: 2345678, CacheCreation: 45678, ContextUsed: 91000, ContextWindow: 200000}
	s.Starts = []state.Start{{Source: "startup", At: t0}, {Source: "compact", At: t0.Add(25 * time.Minute)}}
	s.Compactions = 1
	s.Prompts = []state.Prompt{
		{Timestamp: t0.Add(time.Second), Prompt: "Add a `--json` flag to *export* | keep <b>it</b> small"},
		{Timestamp: t0.Add(10 * time.Minute), Prompt: "Now:\n1. run the tests\n2. ```fix``` what fails"},
		{Timestamp: t0.Add(12 * time.Minute), Kind: state.PromptKindTaskNotification,
			Prompt: "<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>\n<summary>Agent \"Run tests\" completed</summary>\n</task-notification>"},
	}
	done := func(m int) *time.Time { x := t0.Add(time.Duration(m) * time.Minute); return &x }
	s.AgentsHistory = []state.Agent{
		{Name: "Plan", AgentID: "aplan", ToolUseID: "tu1", Description: "Plan the change", StartedAt: t0.Add(time.Minute), CompletedAt: done(3), Status: "completed", DurationMS: 120000, TotalTokens: 5400, ToolsUsed: map[string]int{"Read": 4, "Grep": 2, "Agent": 1}},
		{Name: "Explore", AgentID: "aexp", ToolUseID: "tu2", Description: "Find callers", StartedAt: t0.Add(2 * time.Minute), CompletedAt: done(3), Status: "completed", DurationMS: 45000, ToolsUsed: map[string]int{"Grep": 3}},
		{Name: "tester", AgentID: "atest", ToolUseID: "tu3", Description: "Run tests", Background: true, StartedAt: t0.Add(11 * time.Minute), CompletedAt: done(12), Status: "completed", Result: "FAIL", Marker: "TESTS_FAILED", DurationMS: 61000},
		{Name: "code-reviewer", ToolUseID: "tu4", Description: "Review", StartedAt: t0.Add(29 * time.Minute), Status: "running"},
	}
	s.Files = state.Files{New: []string{"export/export.go"}, Edited: []string{"cmd/root.go", "weird `name`.md"}, Read: []string{"go.mod"}}
	s.ToolsUsed = map[string]int{"Read": 12, "Edit": 3, "Bash": 5, "Agent": 3, "Grep": 5}
	s.Errors = []state.Error{
		{Timestamp: t0.Add(11 * time.Minute), Type: state.ErrorToolFailure, Message: "Exit code 1\n--- FAIL: TestX\n    x_test.go:12: want 1", Context: map[string]any{"tool": "Bash", "agent_id": "atest"}},
		{Timestamp: t0.Add(13 * time.Minute), Type: state.ErrorSpcstr, Message: "config.yaml: line 3: unknown key"},
	}
	s.Notifications = []state.Notification{{Timestamp: t0.Add(14 * time.Minute), Type: "permission_prompt", Message: "Claude needs your permission to use Bash"}}
	s.Todos = []state.Todo{{Content: "Write the exporter", Status: "completed"}, {Content: "Golden tests", Status: "in_progress"}}
	s.EventCounts = map[string]int{"PreToolUse": 2, "UserPromptSubmit": 1}
	p.session(s)
	p.event("pre_tool_use", id, "PreToolUse", t0.Add(2*time.Minute), `{"tool_name":"Agent","tool_use_id":"tu2","agent_id":"aplan"}`, &logs.Outcome{DurationMS: 1.25})
	p.event("user_prompt_submit", id, "UserPromptSubmit", t0.Add(time.Second), `{"prompt":"x"}`, &logs.Outcome{DurationMS: 2.5})
	p.decision(gate.Record{SessionID: id, Timestamp: t0.Add(4 * time.Minute), Source: "requirements", Hook: "PreToolUse", Decision: "deny", Reason: "adr_reviewed unsatisfied: run /arch-review"})
	p.decision(gate.Record{SessionID: id, Timestamp: t0.Add(16 * time.Minute), Source: "feedback-loop", Hook: "Stop", Decision: "block", Reason: "backend: tests failed | fix and re-run the tester", DryRun: true})
	p.decision(gate.Record{SessionID: id, Timestamp: t0.Add(17 * time.Minute), Source: "token-budget", Hook: "Stop", Decision: "allow", Reason: "gate error, failing open", Error: "transcript unreadable"})

	opt := export.Options{Now: fixedNow, Sources: fakeSources, Generator: "spcstr test"}
	sum, err := export.Build(context.Background(), p.l, id, opt)
	if err != nil {
		t.Fatal(err)
	}
	var md, js bytes.Buffer
	if err := export.WriteMarkdown(&md, []*export.Summary{sum}); err != nil {
		t.Fatal(err)
	}
	if err := export.WriteJSON(&js, []*export.Summary{sum}, opt); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "golden", "synthetic.md"), stable(md.Bytes(), p.l.Root))
	golden(t, filepath.Join("testdata", "golden", "synthetic.json"), stable(js.Bytes(), p.l.Root))
	validate(t, js.Bytes())
}

// TestSectionsWithoutSources: with nothing wired, the sections say whether
// their files exist.
func TestSectionsWithoutSources(t *testing.T) {
	const id = "s1"
	p := newProject(t)
	p.session(newSession(id, t0))
	home := t.TempDir()
	build := func() *export.Summary {
		t.Helper()
		sum, err := export.Build(context.Background(), p.l, id, export.Options{Home: home})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	sum := build()
	if sum.Requirements.Status != export.StatusNotConfigured || sum.FeedbackLoop.Status != export.StatusNotEnabled {
		t.Fatalf("bare project: %s / %s", sum.Requirements.Status, sum.FeedbackLoop.Status)
	}
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "requirements.yaml"), []byte("requirements: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fb, _ := p.l.FeedbackPath(id)
	if err := os.WriteFile(fb, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum = build()
	if sum.Requirements.Status != export.StatusUnavailable || sum.FeedbackLoop.Status != export.StatusUnavailable {
		t.Fatalf("with files: %s / %s", sum.Requirements.Status, sum.FeedbackLoop.Status)
	}
	var md bytes.Buffer
	_ = export.WriteMarkdown(&md, []*export.Summary{sum})
	for _, want := range []string{"Requirements are configured, but", "This session has a feedback loop, but"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// A failing source is reported, not fatal.
	sum, err := export.Build(context.Background(), p.l, id, export.Options{Sources: export.Sources{
		Requirements: func(context.Context, state.Layout, *state.Session) ([]export.ReqStatus, error) {
			return nil, errors.New("requirements.yaml: bad scope")
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Requirements.Status != export.StatusError || sum.Requirements.Error != "requirements.yaml: bad scope" {
		t.Errorf("failing source: %+v", sum.Requirements)
	}
}

func TestCorruptStateWithAll(t *testing.T) {
	p := newProject(t)
	p.session(newSession("good", t0))
	path, _ := p.l.StatePath("bad")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := export.Export(context.Background(), &out, p.l, export.Selector{All: true}, "json", export.Options{})
	if err == nil || !strings.Contains(err.Error(), "bad") {
		t.Fatalf("err = %v, want the corrupt session named", err)
	}
	var doc export.Document
	if jerr := json.Unmarshal(out.Bytes(), &doc); jerr != nil || len(doc.Sessions) != 1 || doc.Sessions[0].SessionID != "good" {
		t.Fatalf("the readable session was not exported: %v %s", jerr, out.String())
	}
	// The corrupt file is left where it is: an export only reads.
	if _, err := os.Stat(path); err != nil {
		t.Errorf("corrupt state.json moved: %v", err)
	}
}

// TestModelFromTranscript: without a model in state.json, the latest real
// assistant message of the transcript names it.
func TestModelFromTranscript(t *testing.T) {
	p := newProject(t)
	s := newSession("m1", t0)
	s.TranscriptPath = filepath.Join(t.TempDir(), "t.jsonl")
	lines := `{"type":"user","message":{"role":"user","content":"hi"}}
{"type":"assistant","message":{"model":"claude-sonnet-4-5","usage":{}}}
{"type":"assistant","message":{"model":"claude-opus-4-5","usage":{}}}
{"type":"assistant","message":{"model":"<synthetic>"}}
{"type":"user","message":{"role":"user","content":"\"model\": \"fake\""}}
`
	if err := os.WriteFile(s.TranscriptPath, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	p.session(s)
	sum, err := export.Build(context.Background(), p.l, "m1", export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Model != "claude-opus-4-5" {
		t.Errorf("model = %q, want claude-opus-4-5", sum.Model)
	}
}

// A session longer than state.json's lists is exported whole: History
// supplies the complete lists, asked only when state.json's totals say
// entries were dropped.
func TestLongSessionUsesHistory(t *testing.T) {
	const id = "long1"
	p := newProject(t)
	s := newSession(id, t0)
	s.Prompts = []state.Prompt{{Timestamp: t0, Prompt: "latest"}}
	s.PromptsTotal = 3
	p.session(s)
	asked := 0
	opt := export.Options{Home: t.TempDir(), History: func(_ context.Context, _ state.Layout, got string) (*state.Session, error) {
		asked++
		h := newSession(got, t0)
		h.Prompts = []state.Prompt{{Prompt: "first"}, {Prompt: "second"}, {Prompt: "latest"}}
		return h, nil
	}}
	sum, err := export.Build(context.Background(), p.l, id, opt)
	if err != nil {
		t.Fatal(err)
	}
	if asked != 1 || len(sum.Prompts) != 3 || sum.Totals.Prompts != 3 {
		t.Fatalf("asked %d, prompts %+v", asked, sum.Prompts)
	}
	s.PromptsTotal = 1 // nothing dropped: state.json is enough
	p.session(s)
	if _, err := export.Build(context.Background(), p.l, id, opt); err != nil || asked != 1 {
		t.Fatalf("history asked for a complete state (%d): %v", asked, err)
	}
}
