package tui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// fixedNow is the clock of every golden frame.
var fixedNow = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

const alivePID = 4242

const (
	idBusy    = "1b2c3d4e-0000-4000-8000-000000000001"
	idBg      = "2b2c3d4e-0000-4000-8000-000000000002"
	idEnded   = "3b2c3d4e-0000-4000-8000-000000000003"
	idTrunc   = "4b2c3d4e-0000-4000-8000-000000000004"
	idNoState = "5b2c3d4e-0000-4000-8000-000000000005"
	idHuge    = "6b2c3d4e-0000-4000-8000-000000000006"
)

type fixture struct {
	layout   state.Layout
	registry string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	root := filepath.Join(t.TempDir(), "server")
	f := &fixture{layout: state.Layout{Root: root}, registry: filepath.Join(root, "registry", "sessions.json")}
	if err := os.MkdirAll(f.layout.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) options() Options {
	return Options{
		Layout: f.layout, RegistryPath: f.registry, NoColor: true,
		Now: func() time.Time { return fixedNow }, Alive: func(pid int) bool { return pid == alivePID },
		NoWatch: true, RequirementsDir: filepath.Join(f.layout.Root, "no-requirements"),
	}
}

func (f *fixture) writeState(t testing.TB, s *state.Session) {
	t.Helper()
	p, err := f.layout.StatePath(s.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := jsonfile.WriteJSON(p, s); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) register(t testing.TB, id string, ppid int) {
	t.Helper()
	err := registry.Register(context.Background(), f.registry, id, registry.Entry{PID: 1, PPID: ppid, ProjectDir: f.layout.Root, Branch: "main"},
		func(int) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) log(t testing.TB, event, id string, at time.Time, input map[string]any) {
	t.Helper()
	in, _ := json.Marshal(input)
	e := logs.Entry{Timestamp: at, SessionID: id, Event: event, Input: in, Outcome: &logs.Outcome{DurationMS: 3}}
	b, err := e.Encode()
	if err != nil {
		t.Fatal(err)
	}
	snake := logs.Name(logs.Events, event)
	if err := os.MkdirAll(f.layout.LogsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := logs.Append(context.Background(), f.layout.LogPath(snake), b, logs.Options{}); err != nil {
		t.Fatal(err)
	}
}

var (
	hugeOnce sync.Once
	hugeJSON []byte
)

// hugeState is the JSON of a session whose prompt is 10 MB (encoded once).
func hugeState() []byte {
	hugeOnce.Do(func() {
		huge := state.New(idHuge, "/home/dev/server", ago(time.Hour))
		huge.Status, huge.UpdatedAt, huge.LastEventAt = state.StatusWaiting, ago(50*time.Minute), ago(50*time.Minute)
		huge.Prompts = []state.Prompt{{Timestamp: ago(time.Hour), Prompt: strings.Repeat("a very long prompt ", 10<<20/19)}}
		hugeJSON, _ = json.Marshal(huge)
	})
	return hugeJSON
}

func ago(d time.Duration) time.Time { return fixedNow.Add(-d) }

func activity(minutes ...int) []state.MinuteCount {
	now := fixedNow.Unix() / 60
	var out []state.MinuteCount
	for i, c := range minutes {
		if c > 0 {
			out = append(out, state.MinuteCount{Minute: now - int64(len(minutes)-1-i), Count: c})
		}
	}
	return out
}

// busySession is a working session with everything filled in.
func busySession(root string) *state.Session {
	s := state.New(idBusy, root, ago(25*time.Minute))
	s.Status, s.Branch, s.Model = state.StatusWorking, "feature/healthz", "claude-opus-5-5"
	s.ProjectDir, s.Cwd = "/home/dev/server", "/home/dev/server/cmd"
	s.UpdatedAt, s.LastEventAt, s.LastEvent = ago(2*time.Second), ago(2*time.Second), "PostToolUse"
	s.Tokens = state.Tokens{Input: 48200, Output: 9100, CacheRead: 310000, CacheCreation: 22000, ContextUsed: 128000, ContextWindow: 200000}
	s.Activity = activity(3, 5, 0, 8, 12, 4, 0, 0, 2, 9, 14, 6, 3, 1, 0, 5, 11, 7, 2, 4)
	done := ago(10 * time.Minute)
	s.AgentsHistory = []state.Agent{{
		Name: "reviewer", AgentType: "reviewer", AgentID: "a1", Description: "Review the healthz change",
		StartedAt: ago(11 * time.Minute), CompletedAt: &done, Status: state.AgentCompleted, Result: "PASS",
		Marker: "REVIEW_APPROVED", ToolsUsed: map[string]int{"Read": 2}, DurationMS: 41000,
	}}
	s.Files = state.Files{New: []string{"health.go", "health_test.go"}, Edited: []string{"main.go"}, Read: []string{"main.go", "go.mod", "README.md"}}
	s.ToolsUsed = map[string]int{"Bash": 14, "Read": 9, "Edit": 4, "Write": 2, "Agent": 1, "TodoWrite": 3}
	s.Prompts = []state.Prompt{
		{Timestamp: ago(25 * time.Minute), Prompt: "Add a /healthz endpoint to the server, make the tests pass and get it reviewed."},
		{Timestamp: ago(5 * time.Minute), Prompt: "Also log each request\nwith its latency."},
	}
	s.Errors = []state.Error{{Timestamp: ago(18 * time.Minute), Type: state.ErrorToolFailure, Message: "Exit code 1\n--- FAIL: TestHealthz: want 200, got 404", Context: map[string]any{"tool": "Bash"}}}
	s.Notifications = []state.Notification{{Timestamp: ago(15 * time.Minute), Type: "permission_prompt", Message: "Claude needs your permission to use Bash"}}
	s.Todos = []state.Todo{
		{Content: "Find the HTTP handlers", Status: "completed"},
		{Content: "Add /healthz and a test", Status: "in_progress"},
		{Content: "Get the change reviewed", Status: "pending"},
	}
	s.EventCounts = map[string]int{"PreToolUse": 33, "PostToolUse": 33, "UserPromptSubmit": 2, "Stop": 1, "SessionStart": 1, "PostToolBatch": 20}
	return s
}

// bgSession has background agents, one running.
func bgSession(root string) *state.Session {
	s := state.New(idBg, root, ago(40*time.Minute))
	s.Status, s.Branch, s.Model = state.StatusWaiting, "main", "claude-sonnet-4-5"
	s.ProjectDir = "/home/dev/server"
	s.EventCounts = map[string]int{"PreToolUse": 12, "PostToolUse": 12, "SubagentStart": 3, "SubagentStop": 2}
	s.UpdatedAt, s.LastEventAt = ago(40*time.Second), ago(40*time.Second)
	s.Tokens = state.Tokens{Input: 12000, Output: 3000, CacheRead: 90000, ContextUsed: 178000, ContextWindow: 200000,
		ByModel: map[string]state.ModelUsage{
			"claude-sonnet-4-5": {Input: 9000, Output: 2000, CacheRead: 90000},
			"claude-haiku-5-5":  {Input: 3000, Output: 1000}}}
	// Where the money went: the Explore agent ran haiku in the
	// foreground, the tester sonnet in the background.
	s.Subagents = map[string]state.SubagentUsage{
		"a1": {ByModel: map[string]state.ModelUsage{"claude-haiku-5-5": {Input: 3000, Output: 1000}}, Done: true},
		"a2": {ByModel: map[string]state.ModelUsage{"claude-sonnet-4-5": {Input: 2000, Output: 500, CacheRead: 40000}}},
	}
	s.Activity = activity(6, 9, 4, 0, 7, 3)
	exploreDone := ago(8 * time.Minute)
	revDone := ago(2 * time.Minute)
	s.AgentsHistory = []state.Agent{
		{Name: "Explore", AgentType: "Explore", AgentID: "a1", Description: "Survey the parser module", StartedAt: ago(9 * time.Minute),
			CompletedAt: &exploreDone, Status: state.AgentCompleted, DurationMS: 52000, ToolsUsed: map[string]int{"Bash": 1, "Read": 1}},
		{Name: "tester", AgentType: "tester", AgentID: "a2", Description: "Run the parser tests", Background: true,
			StartedAt: ago(7 * time.Minute), Status: state.AgentRunning, ToolsUsed: map[string]int{"Bash": 3}},
		{Name: "reviewer", AgentType: "reviewer", AgentID: "a3", Description: "Review parser.py", Background: true,
			StartedAt: ago(7 * time.Minute), CompletedAt: &revDone, Status: state.AgentCompleted, Result: "FAIL", Marker: "REVIEW_REJECTED",
			DurationMS: 300000},
	}
	s.Agents = []string{"tester"}
	s.ToolsUsed = map[string]int{"Agent": 3, "Bash": 2, "Read": 1}
	s.Prompts = []state.Prompt{
		{Timestamp: ago(9 * time.Minute), Prompt: "Survey the parser, then run the tests and a review in parallel."},
		{Timestamp: ago(2 * time.Minute), Prompt: "<task-notification>reviewer finished</task-notification>", Kind: state.PromptKindTaskNotification},
	}
	s.Tasks = []state.Task{{ID: "1", Subject: "Fix whitespace in parse()", Status: "in_progress"}}
	s.Title, s.TitleSource = "Parser survey with a parallel test run and review", state.TitleAI
	return s
}

// populate writes the busy, background and ended sessions, their registry
// entries and some log entries.
func (f *fixture) populate(t testing.TB) {
	root := f.layout.Root
	f.writeState(t, busySession(root))
	f.writeState(t, bgSession(root))
	ended := state.New(idEnded, root, ago(3*time.Hour))
	ended.ProjectDir = "/home/dev/server"
	ended.Status, ended.EndReason, ended.Branch = state.StatusEnded, "prompt_input_exit", "main"
	ended.UpdatedAt, ended.LastEventAt = ago(2*time.Hour), ago(2*time.Hour)
	ended.ToolsUsed = map[string]int{"Read": 1}
	ended.Title, ended.TitleSource = "Read: go.mod", state.TitleTool
	f.writeState(t, ended)
	f.register(t, idBusy, alivePID)
	f.register(t, idBg, alivePID)
	f.log(t, "UserPromptSubmit", idBusy, ago(5*time.Minute), map[string]any{"prompt": "Also log each request with its latency."})
	f.log(t, "PreToolUse", idBusy, ago(4*time.Second), map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}})
	f.log(t, "PostToolUseFailure", idBusy, ago(3*time.Second), map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}, "error": "Exit code 1"})
	f.log(t, "PostToolUse", idBusy, ago(2*time.Second), map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": filepath.Join(root, "main.go")}})
	f.log(t, "SubagentStop", idBg, ago(2*time.Minute), map[string]any{"agent_type": "reviewer", "last_assistant_message": "REVIEW_REJECTED: strip each part."})
	f.log(t, "PreToolUse", idBg, ago(40*time.Second), map[string]any{"tool_name": "Bash", "agent_type": "tester", "tool_input": map[string]any{"command": "sh run-tests.sh"}})
}

// policies configures requirements and a feedback loop for the busy session:
// .claude/requirements.yaml with three requirements, the branch's state file
// (one satisfied by a skill, one triggered and unmet, one never triggered),
// and a feedback-loop.json where review passed, test planning failed and
// testing has not run, in iteration 2.
func (f *fixture) policies(t testing.TB) {
	root := f.layout.Root
	cfg := `requirements:
  commit_plan:
    enabled: true
    scope: session
    trigger_tools: [Edit, Write]
    satisfied_by_skill: plan-review
    message: Plan the change first
  pre_commit_review:
    enabled: true
    scope: single_use
    trigger_tools: [{tool: Bash, command_pattern: "git\\s+commit"}]
    satisfied_by_skill: pre-commit
    message: Review before committing
  architecture_reviewed:
    enabled: true
    scope: branch
    trigger_tools: [Edit]
    message: Review the architecture once per branch
`
	dir := filepath.Join(root, ".claude")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "requirements.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	at := float64(ago(10 * time.Minute).Unix())
	short := idBusy[:8]
	reqState := map[string]any{
		"version": "1.0", "branch": "default", "project": root, "created_at": at, "updated_at": at,
		"requirements": map[string]any{
			"commit_plan": map[string]any{"scope": "session", "sessions": map[string]any{
				short: map[string]any{"triggered": true, "triggered_at": at, "satisfied": true, "satisfied_at": at,
					"satisfied_by": "skill", "metadata": map[string]any{"skill": "plan-review"}}}},
			"pre_commit_review": map[string]any{"scope": "single_use", "sessions": map[string]any{
				short: map[string]any{"triggered": true, "triggered_at": at}}},
		},
	}
	writeJSON(t, filepath.Join(f.layout.Dir(), "requirements", "default.json"), reqState)

	ran := ago(4 * time.Minute)
	loop := map[string]any{
		"version": 1, "active": true, "started_at": ago(20 * time.Minute), "updated_at": ran,
		"iteration": 2, "modified_domains": []string{"backend"}, "loops": 1,
		"domain_phases": map[string]any{"backend": map[string]any{
			"review":        map[string]any{"status": "PASS", "agent": "backend-reviewer", "marker": "REVIEW_APPROVED", "ran_at": ran},
			"test_planning": map[string]any{"status": "FAIL", "agent": "test-lead", "marker": "TEST_PLAN_BLOCKED", "ran_at": ran, "issues": []string{"no fixture for the latency log"}},
			"testing":       map[string]any{"status": "NOT_RUN"},
		}},
		"consecutive_failures": map[string]any{"backend": map[string]any{"review": 0, "test_planning": 1, "testing": 0}},
		"history":              []any{},
	}
	fp, _ := f.layout.FeedbackPath(idBusy)
	writeJSON(t, fp, loop)
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// damage writes a truncated state.json, a session folder without state, a
// session with a 10 MB prompt and a torn log tail.
func (f *fixture) damage(t testing.TB) {
	root := f.layout.Root
	p, _ := f.layout.StatePath(idTrunc)
	os.MkdirAll(filepath.Dir(p), 0o755)
	good, _ := json.Marshal(busySession(root))
	if err := os.WriteFile(p, good[:len(good)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(p, ago(30*time.Second), ago(30*time.Second))
	d, _ := f.layout.SessionDir(idNoState)
	os.MkdirAll(d, 0o755)
	os.Chtimes(d, ago(time.Minute), ago(time.Minute))
	hp, _ := f.layout.StatePath(idHuge)
	os.MkdirAll(filepath.Dir(hp), 0o755)
	if err := os.WriteFile(hp, hugeState(), 0o644); err != nil {
		t.Fatal(err)
	}
	f.register(t, idHuge, alivePID)
	f.log(t, "Stop", idHuge, ago(50*time.Minute), map[string]any{"stop_hook_active": false})
	lp := f.layout.LogPath("stop")
	fh, err := os.OpenFile(lp, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := fh.Stat()
	// A crash mid-append: the closing bracket replaced by half an entry.
	fh.WriteAt([]byte(",\n{\"timestamp\":\"2026-01-15T11:59:00Z\",\"session_id\":\"6b2c"), fi.Size()-3)
	fh.Close()
}

// decide appends one gate decision to .spcstr/logs/decisions.json, as the
// recorder writes it.
func (f *fixture) decide(t testing.TB, r gate.Record) {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(f.layout.LogsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := logs.Append(context.Background(), f.layout.LogPath(logs.Name(logs.Decisions, "")), b, logs.Options{}); err != nil {
		t.Fatal(err)
	}
}

// decisions logs gate decisions for the busy session: an allow, a deny, a
// dry-run block and a block carrying only a message.
func (f *fixture) decisions(t testing.TB) {
	f.decide(t, gate.Record{SessionID: idBusy, Timestamp: ago(4*time.Minute + 30*time.Second), Source: "requirements:commit_plan",
		Hook: "PreToolUse", Decision: "allow", Reason: "satisfied by skill plan-review"})
	f.decide(t, gate.Record{SessionID: idBusy, Timestamp: ago(3*time.Minute + 30*time.Second), Source: "requirements:pre_commit_review",
		Hook: "PreToolUse", Decision: "deny", Reason: "Review before committing"})
	f.decide(t, gate.Record{SessionID: idBusy, Timestamp: ago(90 * time.Second), Source: "strategy:clean-state",
		Hook: "Stop", Decision: "block", Reason: "uncommitted changes: main.go", DryRun: true})
	f.decide(t, gate.Record{SessionID: idBusy, Timestamp: ago(time.Second), Source: "feedback",
		Hook: "SubagentStop", Decision: "block", Message: "run the tests next"})
}

// strategies writes .spcstr/config.yaml with two strategies.
func (f *fixture) strategies(t testing.TB) {
	t.Helper()
	cfg := "strategies:\n  token-budget: {}\n  clean-state:\n    require_files: [README.md]\n"
	if err := os.WriteFile(f.layout.ConfigPath(), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

// brokenStrategy writes a config whose clean-state section cannot be used:
// that strategy is off (it fails open), and the header must say so.
func (f *fixture) brokenStrategy(t testing.TB) {
	t.Helper()
	cfg := "strategies:\n  token-budget: {}\n  clean-state:\n    require_files: 5\n"
	if err := os.WriteFile(f.layout.ConfigPath(), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

const idStale = "7b2c3d4e-0000-4000-8000-000000000007"

// stale writes one session whose Claude Code process is gone (it is not
// in the registry): its last event was an hour ago, after one compaction.
func (f *fixture) stale(t testing.TB) {
	s := state.New(idStale, f.layout.Root, ago(3*time.Hour))
	s.ProjectDir, s.Branch, s.Model = "/home/dev/server", "main", "claude-haiku-4-5-20251001"
	s.Status, s.UpdatedAt, s.LastEventAt, s.LastEvent = state.StatusWorking, ago(time.Hour), ago(time.Hour), "PostToolUse"
	s.Compactions = 1
	s.Title, s.TitleSource = "Bash: Run the migration", state.TitleTool
	s.ToolsUsed = map[string]int{"Bash": 1}
	s.Tokens = state.Tokens{Input: 1000, Output: 200, ContextWindow: 200000, ContextUsed: 1000,
		ByModel: map[string]state.ModelUsage{"claude-haiku-4-5-20251001": {Input: 1000, Output: 200}}}
	s.Files = state.Files{New: []string{"db/002.sql"}, Edited: []string{"db/002.sql", "db/migrate.go"}, Read: []string{"db/migrate.go", "go.mod"}}
	f.writeState(t, s)
}

// dryRun adds dry_run: true to .spcstr/config.yaml: every gate logs what it
// would decide and blocks nothing.
func (f *fixture) dryRun(t testing.TB) {
	t.Helper()
	old, err := os.ReadFile(f.layout.ConfigPath())
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.layout.ConfigPath(), append([]byte("dry_run: true\n"), old...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// feedbackOn writes a .spcstr/config.yaml that enables the feedback loop.
func (f *fixture) feedbackOn(t testing.TB) {
	t.Helper()
	if err := os.WriteFile(f.layout.ConfigPath(), []byte("feedback:\n  enabled: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

const idAsking = "8b2c3d4e-0000-4000-8000-000000000008"

// askingSession waits for the user's permission (a registered, live
// session whose latest notification is a permission prompt), older than
// the others: it still sorts first.
func askingSession(root string) *state.Session {
	s := state.New(idAsking, root, ago(50*time.Minute))
	s.ProjectDir, s.Branch, s.Model = "/home/dev/server", "fix/login", "claude-sonnet-4-5-20250929"
	s.Status, s.UpdatedAt, s.LastEventAt, s.LastEvent = state.StatusNeedsInput, ago(3*time.Minute), ago(3*time.Minute), "Notification"
	s.Title, s.TitleSource = "Fix the login redirect loop", state.TitlePrompt
	s.ToolsUsed = map[string]int{"Read": 3, "Edit": 1}
	s.Notifications = []state.Notification{{Timestamp: ago(3 * time.Minute), Type: "permission_prompt", Message: "Claude needs your permission to use Bash"}}
	return s
}

// asking writes askingSession and registers it.
func (f *fixture) asking(t testing.TB) {
	f.writeState(t, askingSession(f.layout.Root))
	f.register(t, idAsking, alivePID)
}
