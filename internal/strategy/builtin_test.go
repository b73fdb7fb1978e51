package strategy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

func TestTokenBudget(t *testing.T) {
	type ev struct {
		name    string
		tool    string
		ctx     int64 // context_used
		total   int64 // input+output
		compact int
	}
	tests := []struct {
		name   string
		yaml   string
		events []ev
		want   []string // per event: "" | "warn" | "critical" | "emergency" | "deny"
	}{
		{name: "context levels once each",
			yaml:   "strategies:\n  token-budget: {}\n",
			events: []ev{{name: "PostToolUse", tool: "Read", ctx: 100_000}, {name: "PostToolUse", tool: "Read", ctx: 151_000}, {name: "PostToolUse", tool: "Bash", ctx: 152_000}, {name: "UserPromptSubmit", ctx: 161_000}, {name: "PostToolUse", tool: "Read", ctx: 175_000}, {name: "PostToolUse", tool: "Read", ctx: 190_000}},
			want:   []string{"", "warn", "", "critical", "emergency", ""}},
		{name: "jumping to emergency retires the lower levels; compaction re-arms",
			yaml:   "strategies:\n  token-budget: {}\n",
			events: []ev{{name: "PostToolUse", tool: "Read", ctx: 180_000}, {name: "PostToolUse", tool: "Read", ctx: 181_000}, {name: "PostToolUse", tool: "Read", ctx: 50_000, compact: 1}, {name: "PostToolUse", tool: "Read", ctx: 155_000, compact: 1}},
			want:   []string{"emergency", "", "", "warn"}},
		{name: "example totals",
			yaml:   "strategies:\n  token-budget:\n    measure: total\n    warn_threshold: 1000\n    critical_threshold: 2_000\n    emergency_threshold: 3000\n",
			events: []ev{{name: "PostToolUse", tool: "Read", total: 999}, {name: "PostToolUse", tool: "Read", total: 1500}, {name: "PostToolUse", tool: "Read", total: 3500}},
			want:   []string{"", "warn", "emergency"}},
		{name: "token counts without a measure count input+output, as the design meant",
			yaml:   "strategies:\n  token-budget:\n    warn_threshold: 1000\n    critical_threshold: 2000\n    emergency_threshold: 3000\n",
			events: []ev{{name: "PostToolUse", tool: "Read", ctx: 190_000, total: 500}, {name: "PostToolUse", tool: "Read", ctx: 190_000, total: 1500}, {name: "PostToolUse", tool: "Read", ctx: 10, total: 3500}},
			want:   []string{"", "warn", "emergency"}},
		{name: "one token count without a measure: the other levels take total's defaults",
			yaml:   "strategies:\n  token-budget:\n    warn_threshold: 50000\n",
			events: []ev{{name: "PostToolUse", tool: "Read", ctx: 190_000, total: 60_000}, {name: "PostToolUse", tool: "Read", total: 160_000}},
			want:   []string{"warn", "critical"}},
		{name: "a percentage keeps the context measure; its token counts are context tokens",
			yaml:   "strategies:\n  token-budget:\n    warn_threshold: 1000\n    critical_threshold: 80%\n",
			events: []ev{{name: "PostToolUse", tool: "Read", ctx: 500, total: 5000}, {name: "PostToolUse", tool: "Read", ctx: 1500, total: 5000}, {name: "PostToolUse", tool: "Read", ctx: 161_000}},
			want:   []string{"", "warn", "critical"}},
		{name: "compaction gate denies agent spawns over the limit",
			yaml:   "strategies:\n  token-budget:\n    deny_agents_above: 85%\n",
			events: []ev{{name: "PreToolUse", tool: "Agent", ctx: 160_000}, {name: "PreToolUse", tool: "Agent", ctx: 171_000}, {name: "PreToolUse", tool: "Task", ctx: 171_000}, {name: "PreToolUse", tool: "Bash", ctx: 190_000}},
			want:   []string{"", "deny", "deny", ""}},
		{name: "no deny without the option",
			yaml:   "strategies:\n  token-budget: {}\n",
			events: []ev{{name: "PreToolUse", tool: "Agent", ctx: 199_000}},
			want:   []string{""}},
		{name: "deny only when the orchestration marker exists",
			yaml:   "strategies:\n  token-budget:\n    deny_agents_above: 170000\n    deny_agents_requires: [\".claude/.output/*/MANIFEST.yaml\"]\n",
			events: []ev{{name: "PreToolUse", tool: "Agent", ctx: 180_000}},
			want:   []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, false)
			gs := p.gates(tt.yaml)
			for i, e := range tt.events {
				p.sess.Tokens = state.Tokens{ContextUsed: e.ctx, Input: e.total, ContextWindow: 200_000}
				p.sess.Compactions = e.compact
				f := map[string]any{}
				if e.tool != "" {
					f["tool_name"] = e.tool
				}
				vs := run(t, gs, p.input(e.name, f))
				got := ""
				for _, v := range vs {
					switch {
					case v.Decision == gate.Deny:
						got = "deny"
						if !strings.HasPrefix(v.Reason, "context-over-limit:") || !strings.Contains(v.Message, "/compact") {
							t.Errorf("deny verdict = %+v", v)
						}
					case strings.HasPrefix(v.Context, "EMERGENCY"):
						got = "emergency"
					case strings.HasPrefix(v.Context, "CRITICAL"):
						got = "critical"
					case strings.HasPrefix(v.Context, "Notice"):
						got = "warn"
					}
				}
				if got != tt.want[i] {
					t.Errorf("event %d (%s %s ctx=%d): got %q, want %q (%+v)", i, e.name, e.tool, e.ctx, got, tt.want[i], vs)
				}
			}
		})
	}
	// A manifest without current_phase is an audit trail, not a running
	// orchestration: no deny.
	p := newProject(t, false)
	p.write(".claude/.output/feat-1/MANIFEST.yaml", "feature: auth\nagents_contributed: []\n")
	gs := p.gates("strategies:\n  token-budget:\n    deny_agents_above: 170000\n    deny_agents_requires: [\".claude/.output/*/MANIFEST.yaml\"]\n")
	p.sess.Tokens = state.Tokens{ContextUsed: 180_000, ContextWindow: 200_000}
	if vs := run(t, gs, p.input("PreToolUse", map[string]any{"tool_name": "Agent"})); len(vs) != 0 {
		t.Fatalf("manifest without current_phase = %+v", vs)
	}
	// The marker-file condition satisfied: deny.
	p.write(".claude/.output/feat-1/MANIFEST.yaml", "current_phase: 8\n")
	if vs := run(t, gs, p.input("PreToolUse", map[string]any{"tool_name": "Agent"})); len(vs) != 1 || vs[0].Decision != gate.Deny {
		t.Fatalf("deny with manifest = %+v", vs)
	}
	// A subagent's own tool calls are not warned about.
	p.sess.Tokens = state.Tokens{ContextUsed: 190_000, ContextWindow: 200_000}
	if vs := run(t, gs, p.input("PostToolUse", map[string]any{"tool_name": "Read", "agent_id": "a1"})); len(vs) != 0 {
		t.Fatalf("subagent tool call warned: %+v", vs)
	}
}

func TestCleanState(t *testing.T) {
	p := newProject(t, true)
	gs := p.gates("strategies:\n  clean-state:\n    require_files: [README.md, CHANGELOG.md]\n    ignore: [\"*.log\"]\n")
	stop := func() gate.Verdict {
		vs := run(t, gs, p.input(hookio.Stop, nil))
		if len(vs) != 1 {
			t.Fatalf("verdicts = %+v", vs)
		}
		return vs[0]
	}
	if v := stop(); v.Decision != gate.Block || v.Reason != "missing-files" || !strings.Contains(v.Message, "Missing required file: CHANGELOG.md") {
		t.Fatalf("missing file = %+v", v)
	}
	p.write("CHANGELOG.md", "x")
	p.write("debug.log", "ignored")
	p.write(".spcstr/sessions/s1/state.json", "{}") // spcstr's own files never count
	if v := stop(); v.Decision != gate.Block || v.Reason != "uncommitted-changes" || !strings.Contains(v.Message, "CHANGELOG.md") || strings.Contains(v.Message, "debug.log") {
		t.Fatalf("dirty = %+v", v)
	}
	p.git("add", "CHANGELOG.md")
	p.git("commit", "-q", "-m", "changelog")
	if v := stop(); v.Decision != gate.Allow || v.Reason != "clean" {
		t.Fatalf("clean = %+v", v)
	}
	// Outside git the uncommitted check is skipped.
	q := newProject(t, false)
	q.write("README.md", "x")
	q.write("CHANGELOG.md", "x")
	if vs := run(t, q.gates("strategies:\n  clean-state:\n    require_files: [README.md]\n"), q.input(hookio.Stop, nil)); vs[0].Decision != gate.Allow {
		t.Fatalf("no git = %+v", vs)
	}
}

func TestLongRunning(t *testing.T) {
	p := newProject(t, true)
	gs := p.gates("strategies:\n  long-running: {}\n")
	start := func(source string) string {
		vs := run(t, gs, p.input(hookio.SessionStart, map[string]any{"source": source}))
		if len(vs) != 1 {
			t.Fatalf("session start verdicts = %+v", vs)
		}
		return vs[0].Context
	}
	if c := start("startup"); !strings.Contains(c, "INITIALIZER AGENT") || !strings.Contains(c, "feature_list.json") {
		t.Fatalf("initializer context = %q", c)
	}
	features := `[{"description":"a","passes":true},{"description":"b","passes":false}]`
	p.write("feature_list.json", features)
	p.write("claude-progress.txt", "Session 1: set up.\n\nSession 2: built login.\n")
	p.git("add", "-A")
	p.git("commit", "-q", "-m", "features")
	c := start("startup")
	for _, want := range []string{"Features: 1/2 passing", "features", "Last session: Session 2: built login.", "ONE feature"} {
		if !strings.Contains(c, want) {
			t.Errorf("coding context lacks %q:\n%s", want, c)
		}
	}
	// Commits are counted; PreCompact saves a checkpoint that the
	// compaction's SessionStart gives back.
	run(t, gs, p.input(hookio.PostToolUse, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "git add -A && git commit -m wip"}, "tool_response": map[string]any{"stdout": "ok"}}))
	run(t, gs, p.input(hookio.PostToolUse, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "echo git commit"}, "tool_response": map[string]any{}}))
	p.sess.Files.Edited = []string{"app.go"}
	if vs := run(t, gs, p.input(hookio.PreCompact, map[string]any{"trigger": "auto"})); len(vs) != 0 {
		t.Fatalf("PreCompact answered %+v", vs)
	}
	c = start("compact")
	for _, want := range []string{"Context Restored After Compaction", "Commits this session: 1", "Compaction checkpoint", "1/2 features passing, 1 files modified, 1 commits"} {
		if !strings.Contains(c, want) {
			t.Errorf("compact context lacks %q:\n%s", want, c)
		}
	}
	// Structural change of the feature list: warned; a passes flip: not.
	write := func(content string) []gate.Verdict {
		old, _ := os.ReadFile(filepath.Join(p.layout.Root, "feature_list.json"))
		p.write("feature_list.json", content)
		return run(t, gs, p.input(hookio.PostToolUse, map[string]any{"tool_name": "Write",
			"tool_input":    map[string]any{"file_path": filepath.Join(p.layout.Root, "feature_list.json"), "content": content},
			"tool_response": map[string]any{"type": "update", "originalFile": string(old)}}))
	}
	if vs := write(`[{"description":"a","passes":true},{"description":"b","passes":true}]`); len(vs) != 0 {
		t.Fatalf("passes flip warned: %+v", vs)
	}
	if vs := write(`[{"description":"a","passes":true}]`); len(vs) != 1 || !strings.Contains(vs[0].Context, "structure changed") {
		t.Fatalf("removed feature = %+v", vs)
	}
	if vs := write(`[{"description":"a"}]`); len(vs) != 1 || !strings.Contains(vs[0].Context, `missing properties: ["passes"]`) {
		t.Fatalf("schema = %+v", vs)
	}
	// Stop: uncommitted changes and no progress update since the start.
	p.sess.Starts = append(p.sess.Starts, state.Start{Source: "startup", At: time.Now().Add(time.Hour)})
	stop := func() gate.Verdict {
		vs := run(t, gs, p.input(hookio.Stop, nil))
		if len(vs) != 1 {
			t.Fatalf("stop verdicts = %+v", vs)
		}
		return vs[0]
	}
	if v := stop(); v.Decision != gate.Block || v.Reason != "uncommitted-changes,progress-not-updated" {
		t.Fatalf("stop = %+v", v)
	}
	p.sess.Starts = p.sess.Starts[:len(p.sess.Starts)-1]
	p.write("claude-progress.txt", "Session 3: more.\n")
	p.git("add", "-A")
	p.git("commit", "-q", "-m", "progress")
	if v := stop(); v.Decision != gate.Allow {
		t.Fatalf("clean stop = %+v", v)
	}
	// A session that changed nothing need not write progress.
	q := newProject(t, true)
	q.sess.Starts = []state.Start{{Source: "startup", At: time.Now().Add(time.Hour)}}
	if vs := run(t, q.gates("strategies:\n  long-running: {}\n"), q.input(hookio.Stop, nil)); vs[0].Decision != gate.Allow {
		t.Fatalf("idle session stop = %+v", vs)
	}
	// enforce_commits off: a warning instead of a block.
	q.write("x.go", "package x")
	if vs := run(t, q.gates("strategies:\n  long-running:\n    enforce_commits: false\n    require_progress: false\n"), q.input(hookio.Stop, nil)); vs[0].Decision != gate.Allow || !strings.Contains(vs[0].SystemMessage, "x.go") {
		t.Fatalf("warn only = %+v", vs)
	}
}

func TestOutputLocation(t *testing.T) {
	p := newProject(t, true)
	old := filepath.Join(p.layout.Root, "notes-before.md")
	p.write("notes-before.md", "mine")
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	p.sess.CreatedAt = time.Now().Add(-time.Minute)
	gs := p.gates("strategies:\n  output-location:\n    skip_agents: [Explore]\n")
	started := time.Now().Add(-10 * time.Second)
	p.sess.AgentsHistory = []state.Agent{{Name: "backend-developer", AgentID: "a1", StartedAt: started}, {Name: "Explore", AgentID: "a2", StartedAt: started}}
	p.write("docs/plan.md", "ok")
	p.write(".claude/.output/agents/x/out.md", "ok")
	p.write("CHANGELOG.md", "ok")
	p.write("notes.txt", "not markdown")
	sub := func(id, typ string) []gate.Verdict {
		return run(t, gs, p.input(hookio.SubagentStop, map[string]any{"agent_id": id, "agent_type": typ}))
	}
	if vs := sub("a1", "backend-developer"); len(vs) != 1 || vs[0].Decision != gate.Allow {
		t.Fatalf("allowed locations = %+v", vs)
	}
	p.write("report.md", "stray")
	p.write("pkg/SUMMARY.md", "stray")
	vs := sub("a1", "backend-developer")
	if len(vs) != 1 || vs[0].Decision != gate.Block || vs[0].Reason != "misplaced-output:2" ||
		!strings.Contains(vs[0].Message, "report.md") || !strings.Contains(vs[0].Message, "pkg/SUMMARY.md") ||
		strings.Contains(vs[0].Message, "notes-before.md") || !strings.Contains(vs[0].Message, ".claude/.output/") {
		t.Fatalf("stray output = %+v", vs)
	}
	if vs := sub("a2", "Explore"); len(vs) != 0 {
		t.Fatalf("skipped agent answered %+v", vs)
	}
	if vs := sub("h1", ""); len(vs) != 0 {
		t.Fatalf("internal helper answered %+v", vs)
	}
	if vs := run(t, gs, p.input(hookio.Stop, nil)); vs[0].Decision != gate.Block {
		t.Fatalf("stop = %+v", vs)
	}
	// Outside git: the files the session created.
	q := newProject(t, false)
	q.write("draft.md", "x")
	q.sess.Files.New = []string{"draft.md", "docs/ok.md"}
	if vs := run(t, q.gates("strategies:\n  output-location: {}\n"), q.input(hookio.Stop, nil)); vs[0].Decision != gate.Block || !strings.Contains(vs[0].Message, "draft.md") {
		t.Fatalf("no git = %+v", vs)
	}
}
