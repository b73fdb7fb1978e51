package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/e2e/harness"
)

// maxParallel is how many scenarios run at once: each runs the Claude Code
// binary, the mock and a hook process per event, on a 2-core machine.
const maxParallel = 2

// extraChecks are the explicit, per-scenario checks that would catch a
// regression the derived comparisons might share with the recorder (both
// sides wrong the same way). Every scenario also gets checkAll.
var extraChecks = map[string]func(t *testing.T, r *run){
	"basic":              checkBasic,
	"agents":             checkForegroundAgents,
	"agents-background":  checkBackgroundAgents,
	"tasks":              checkTasks,
	"slash-command":      checkSlashCommand,
	"permissions":        checkPermissions,
	"stop-block":         checkStopBlock,
	"compact":            checkCompact,
	"cwd":                checkCwd,
	"cwd-no-project-dir": checkCwd,
}

// scenarios lists testdata/scenarios, plus a variant of cwd in which
// spcstr does not get CLAUDE_PROJECT_DIR and must find the root from the
// payload's cwd.
//
// The stop-block and permissions scenarios are about their helper hooks (a
// Stop block, a PermissionRequest allow); they run with testdata/chain.sh,
// which runs spcstr and then the helper on the same stdin, like two hooks
// registered for one event.
func scenarios(t *testing.T) []scenario {
	t.Helper()
	var out []scenario
	files, err := filepath.Glob(filepath.Join("testdata", "scenarios", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Helper string `json:"helper"`
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &meta); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		sc := scenario{name: name, file: abs}
		if meta.Helper != "" {
			sc.helper = harness.ShellQuote(env.Hookwrap) + " helper " + meta.Helper
		}
		out = append(out, sc)
		if name == "cwd" {
			out = append(out, scenario{name: "cwd-no-project-dir", file: abs, noProjectDir: true})
		}
	}
	for want := range extraChecks {
		if !slices.ContainsFunc(out, func(s scenario) bool { return s.name == want }) {
			t.Errorf("scenario %s is missing from testdata/scenarios", want)
		}
	}
	return out
}

// TestScenarios runs every scenario through the real Claude Code CLI with
// spcstr as the hook and compares spcstr's state and logs with the
// payloads Claude Code sent.
func TestScenarios(t *testing.T) {
	requireHarness(t)
	sem := make(chan struct{}, maxParallel)
	t0 := time.Now()
	t.Cleanup(func() { t.Logf("all scenarios: %s", time.Since(t0).Round(time.Second)) })
	for _, sc := range scenarios(t) {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			r := func() *run {
				// Release the slot even when runScenario fails the test
				// (t.Fatal ends this goroutine): a leaked slot would leave
				// every later scenario waiting forever.
				sem <- struct{}{}
				defer func() { <-sem }()
				return runScenario(t, sc)
			}()
			t.Logf("%s: %d hook payloads, run took %s; outputs in %s", sc.name, len(r.captured), r.elapsed.Round(100*time.Millisecond), r.out)
			if *record && !sc.noProjectDir {
				saveRecording(t, r)
			}
			r.loadSpcstr(t)
			logHookLatency(t, r)
			checkAll(t, r)
			t.Run("cost", func(t *testing.T) { checkCost(t, r) })
			if extra := extraChecks[sc.name]; extra != nil {
				t.Run("explicit", func(t *testing.T) { extra(t, r) })
			}
		})
	}
}

// logHookLatency reports the median time spcstr spent per hook (from the
// logs' outcome.duration_ms), for information only.
func logHookLatency(t *testing.T, r *run) {
	var ds []float64
	for _, entries := range r.logs {
		for _, e := range entries {
			if e.Outcome != nil {
				ds = append(ds, e.Outcome.DurationMS)
			}
		}
	}
	if len(ds) == 0 {
		return
	}
	sort.Float64s(ds)
	t.Logf("spcstr hook: median %.2f ms, max %.2f ms over %d events", ds[len(ds)/2], ds[len(ds)-1], len(ds))
}

func wantEqual[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got %+v, want %+v", what, got, want)
	}
}

func checkBasic(t *testing.T, r *run) {
	s := r.state
	wantEqual(t, "files.new", s.Files.New, []string{"notes.txt"})
	wantEqual(t, "files.edited", s.Files.Edited, []string{"notes.txt"})
	wantEqual(t, "files.read", s.Files.Read, []string{"notes.txt"})
	// Two Bash calls: one succeeded, one failed; each counted once.
	wantEqual(t, "tools_used[Bash]", s.ToolsUsed["Bash"], 2)
	wantEqual(t, "tools_used[TodoWrite]", s.ToolsUsed["TodoWrite"], 2)
	if len(s.Errors) != 1 || s.Errors[0].Type != "tool_failure" || !strings.Contains(s.Errors[0].Message, "does-not-exist.txt") {
		t.Errorf("errors %+v, want the one failed Bash (cat does-not-exist.txt)", s.Errors)
	}
	if len(s.Todos) != 2 || s.Todos[0].Status != "completed" || s.Todos[1].Status != "completed" {
		t.Errorf("todos %+v, want both completed", s.Todos)
	}
	wantEqual(t, "instructions_loaded entries", len(r.logs["instructions_loaded"]), 1)
	wantEqual(t, "prompts", len(s.Prompts), 1)
	wantEqual(t, "status", s.Status, "ended")
}

func checkForegroundAgents(t *testing.T, r *run) {
	h := r.state.AgentsHistory
	if len(h) != 2 {
		t.Fatalf("agents_history %+v, want 2 agents", h)
	}
	wantEqual(t, "agent types", []string{h[0].AgentType, h[1].AgentType}, []string{"general-purpose", "reviewer"})
	for _, e := range h {
		if e.Background {
			t.Errorf("agent %s marked background; it ran in the foreground", e.AgentID)
		}
		if !strings.HasPrefix(e.AgentID, "a") || len(e.AgentID) != 17 {
			t.Errorf("agent_id %q is not Claude Code's a + 16 hex digits", e.AgentID)
		}
	}
	wantEqual(t, "general-purpose tools", h[0].ToolsUsed, map[string]int{"Bash": 1})
	wantEqual(t, "reviewer tools", h[1].ToolsUsed, map[string]int{"Read": 1})
	wantEqual(t, "reviewer marker", h[1].Marker, "REVIEW_APPROVED")
	wantEqual(t, "reviewer result", h[1].Result, "PASS")
	// The reviewer's Read was in the subagent: still a file read.
	wantEqual(t, "files.read", r.state.Files.Read, []string{"README.md"})
	wantEqual(t, "tools_used", r.state.ToolsUsed, map[string]int{"Agent": 2, "Bash": 1, "Read": 1})
}

func checkBackgroundAgents(t *testing.T, r *run) {
	s := r.state
	if len(s.AgentsHistory) != 2 {
		t.Fatalf("agents_history %+v, want 2 agents", s.AgentsHistory)
	}
	a, b := s.AgentsHistory[0], s.AgentsHistory[1]
	if !a.Background || !b.Background {
		t.Errorf("background flags %v, %v; both agents were launched async", a.Background, b.Background)
	}
	if a.AgentID == b.AgentID || a.AgentID == "" {
		t.Errorf("agent ids %q, %q; want two distinct ids", a.AgentID, b.AgentID)
	}
	for _, e := range s.AgentsHistory {
		if e.AgentType != "general-purpose" || e.Status != "completed" {
			t.Errorf("agent %s: type %q, status %q; want general-purpose, completed", e.AgentID, e.AgentType, e.Status)
		}
	}
	// Both PostToolUse:Agent hooks run at once, so which agent is recorded
	// first is up to the lock: match each agent by its description.
	wantTools := map[string]map[string]int{
		"List project files": {"Bash": 1},
		"Summarise README":   {"Read": 1},
	}
	for _, e := range s.AgentsHistory {
		want, ok := wantTools[e.Description]
		if !ok {
			t.Errorf("agent %s: description %q is neither scripted agent's", e.AgentID, e.Description)
			continue
		}
		wantEqual(t, "tools of the agent "+e.Description, e.ToolsUsed, want)
		delete(wantTools, e.Description)
	}
	var kinds []string
	for _, p := range s.Prompts {
		kinds = append(kinds, p.Kind)
	}
	wantEqual(t, "prompt kinds", kinds, []string{"", "task-notification", "task-notification"})
	wantEqual(t, "Stops", s.EventCounts["Stop"], 3)
	wantEqual(t, "stop.json entries", len(r.logs["stop"]), 3)
	// The first Stop came while both agents were still running.
	var first struct {
		BackgroundTasks []json.RawMessage `json:"background_tasks"`
	}
	if len(r.logs["stop"]) > 0 {
		stops := r.logs["stop"]
		sort.Slice(stops, func(i, j int) bool { return stops[i].Timestamp.Before(stops[j].Timestamp) })
		if err := json.Unmarshal(stops[0].Input, &first); err != nil {
			t.Fatal(err)
		}
		wantEqual(t, "background_tasks at the first Stop", len(first.BackgroundTasks), 2)
	}
}

func checkTasks(t *testing.T, r *run) {
	s := r.state
	if len(s.Tasks) != 1 || s.Tasks[0].ID != "1" || s.Tasks[0].Status != "completed" || s.Tasks[0].Subject != "Write hello.txt" {
		t.Errorf("tasks %+v, want task 1 \"Write hello.txt\" completed", s.Tasks)
	}
	wantEqual(t, "tools_used[TaskUpdate]", s.ToolsUsed["TaskUpdate"], 2)
	wantEqual(t, "task_created entries", len(r.logs["task_created"]), 1)
	wantEqual(t, "task_completed entries", len(r.logs["task_completed"]), 1)
	wantEqual(t, "files.new", s.Files.New, []string{"hello.txt"})
}

func checkSlashCommand(t *testing.T, r *run) {
	wantEqual(t, "prompts", len(r.state.Prompts), 1)
	if len(r.state.Prompts) == 1 {
		wantEqual(t, "prompt", r.state.Prompts[0].Prompt, "/greet Alice")
	}
	wantEqual(t, "user_prompt_expansion entries", len(r.logs["user_prompt_expansion"]), 1)
	wantEqual(t, "tools_used", len(r.state.ToolsUsed), 0)
}

func checkPermissions(t *testing.T, r *run) {
	// Bash was denied by -p mode: no PostToolUse, so not counted as used.
	wantEqual(t, "tools_used", r.state.ToolsUsed, map[string]int{"Write": 1})
	wantEqual(t, "permission_request entries", len(r.logs["permission_request"]), 2)
	wantEqual(t, "files.new", r.state.Files.New, []string{"allowed.txt"})
	wantEqual(t, "event_counts[PermissionRequest]", r.state.EventCounts["PermissionRequest"], 2)
}

func checkStopBlock(t *testing.T, r *run) {
	wantEqual(t, "Stops", r.state.EventCounts["Stop"], 2)
	wantEqual(t, "files.new", r.state.Files.New, []string{"hello.txt", "CHANGELOG.md"})
	active := map[bool]int{}
	for _, e := range r.logs["stop"] {
		var p struct {
			Active bool `json:"stop_hook_active"`
		}
		if err := json.Unmarshal(e.Input, &p); err != nil {
			t.Fatal(err)
		}
		active[p.Active]++
	}
	wantEqual(t, "stop_hook_active in stop.json", active, map[bool]int{false: 1, true: 1})
	wantEqual(t, "prompts (a Stop block is not a prompt)", len(r.state.Prompts), 1)
}

func checkCompact(t *testing.T, r *run) {
	s := r.state
	wantEqual(t, "compactions", s.Compactions, 1)
	var sources []string
	for _, st := range s.Starts {
		sources = append(sources, st.Source)
	}
	wantEqual(t, "starts", sources, []string{"startup", "compact"})
	// The compaction fork's SubagentStop is logged but is not an agent.
	wantEqual(t, "subagent_stop entries", len(r.logs["subagent_stop"]), 1)
	wantEqual(t, "agents_history", len(s.AgentsHistory), 0)
	wantEqual(t, "pre_compact entries", len(r.logs["pre_compact"]), 1)
	wantEqual(t, "post_compact entries", len(r.logs["post_compact"]), 1)
	// SessionStart(compact) wiped nothing recorded before it.
	wantEqual(t, "files.new", s.Files.New, []string{"plan.txt"})
	wantEqual(t, "files.read", s.Files.Read, []string{"plan.txt"})
	wantEqual(t, "files.edited", s.Files.Edited, []string{"plan.txt"})
	wantEqual(t, "tools_used", s.ToolsUsed, map[string]int{"Write": 1, "Read": 1, "Bash": 1, "Edit": 1})
	wantEqual(t, "prompts", len(s.Prompts), 1)
	wantEqual(t, "model", s.Model, "claude-opus-5-5")
	if s.Tokens.Input < 90000 {
		t.Errorf("tokens.input %d: the turn that forced the compaction reported 90000", s.Tokens.Input)
	}
}

func checkCwd(t *testing.T, r *run) {
	s := r.state
	wantEqual(t, "files.new", s.Files.New, []string{"sub/notes.txt", ".claude/settings.local.json"})
	wantEqual(t, "files.read", s.Files.Read, []string{"sub/notes.txt"})
	wantEqual(t, "files.edited", s.Files.Edited, []string{"sub/notes.txt", "README.md"})
	wantEqual(t, "cwd_changed entries", len(r.logs["cwd_changed"]), 2)
	wantEqual(t, "config_change entries", len(r.logs["config_change"]), 1)
	wantEqual(t, "project_dir", s.ProjectDir, r.project)
	// The session went back with `cd ..`.
	wantEqual(t, "cwd", s.Cwd, r.project)
	inSub := 0
	for _, c := range r.captured {
		if c.p.Cwd == filepath.Join(r.project, "sub") {
			inSub++
		}
	}
	if inSub == 0 {
		t.Error("no payload had the sub folder as cwd: the scenario did not exercise cd")
	}
}

// saveRecording keeps a run as test data of other packages (-record): the
// captured payloads as the recorder's golden inputs, and for the agents
// scenario the main and first subagent transcripts for the transcript
// package's tests.
func saveRecording(t *testing.T, r *run) {
	t.Helper()
	root, err := harness.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	copyFile := func(from, to string) {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %s", to)
	}
	copyFile(filepath.Join(r.out, "captured.jsonl"), filepath.Join(root, "recorder", "testdata", "captures", r.sc.name+".jsonl"))
	if r.sc.name != "agents" {
		return
	}
	dir := filepath.Join(root, "internal", "transcript", "testdata")
	copyFile(r.captured[len(r.captured)-1].p.TranscriptPath, filepath.Join(dir, "agents-main.jsonl"))
	for _, c := range r.captured {
		var p struct {
			Path string `json:"agent_transcript_path"`
		}
		if c.Event == "SubagentStop" && json.Unmarshal(c.Payload, &p) == nil && p.Path != "" {
			copyFile(p.Path, filepath.Join(dir, "agents-sidechain.jsonl"))
			return
		}
	}
	t.Error("no SubagentStop with an agent_transcript_path to record")
}
