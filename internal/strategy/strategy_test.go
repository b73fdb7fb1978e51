package strategy

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

func cfgFrom(t *testing.T, yaml string) *config.Config {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestParseHook(t *testing.T) {
	tests := []struct {
		in   string
		want Hook
		err  bool
	}{
		{"Stop", Hook{Event: "Stop"}, false},
		{"on_stop", Hook{Event: "Stop"}, false},
		{"on_session_start", Hook{Event: "SessionStart"}, false},
		{"on_pre_compact", Hook{Event: "PreCompact"}, false},
		{"on_prompt", Hook{Event: "UserPromptSubmit"}, false},
		{"subagent_stop", Hook{Event: "SubagentStop"}, false},
		{"pre_tool:Bash", Hook{Event: "PreToolUse", Tool: "Bash"}, false},
		{"post_tool:*", Hook{Event: "PostToolUse", Tool: "*"}, false},
		{"PostToolUse", Hook{Event: "PostToolUse", Tool: "*"}, false},
		{"PreToolUse:Agent", Hook{Event: "PreToolUse", Tool: "Agent"}, false},
		{"on_lunch", Hook{}, true},
		{"Stop:Bash", Hook{}, true},
		{"", Hook{}, true},
	}
	for _, tt := range tests {
		got, err := ParseHook(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseHook(%q) = %+v, %v; want %+v, err %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	a, b := Hook{Event: "PostToolUse", Tool: "*"}, Hook{Event: "PostToolUse", Tool: "Bash"}
	if !a.Overlaps(b) || !b.Overlaps(a) || b.Overlaps(Hook{Event: "PostToolUse", Tool: "Write"}) || a.Overlaps(Hook{Event: "PreToolUse", Tool: "*"}) {
		t.Error("Overlaps wrong")
	}
	if !b.Matches("PostToolUse", "Bash") || b.Matches("PostToolUse", "Write") || !a.Matches("PostToolUse", "Write") {
		t.Error("Matches wrong")
	}
}

func TestLoadValidate(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		loaded   []string // enabled strategies, in order
		problems []string // "kind strategies"
		substr   string   // in some problem's message
	}{
		{name: "no section", yaml: "feedback:\n  enabled: true\n"},
		{name: "the example configuration: two blockers at Stop are no problem",
			yaml:   "strategies:\n  long-running:\n    feature_list: feature_list.json\n    enforce_commits: true\n  token-budget:\n    warn_threshold: 100000\n    critical_threshold: 150000\n    measure: total\n  clean-state:\n    require_files: [README.md]\n",
			loaded: []string{"long-running", "token-budget", "clean-state"}},
		{name: "narrowed hooks resolve it",
			yaml:   "strategies:\n  long-running:\n    hooks: [on_session_start, PreCompact, post_tool:*]\n  clean-state: {}\n  output-location:\n    hooks: [SubagentStop]\n",
			loaded: []string{"long-running", "clean-state", "output-location"}},
		{name: "disabled strategy",
			yaml:   "strategies:\n  clean-state:\n  output-location:\n    enabled: false\n",
			loaded: []string{"clean-state"}},
		{name: "output-location and clean-state both block at Stop",
			yaml:   "strategies:\n  output-location: {}\n  clean-state: {}\n",
			loaded: []string{"output-location", "clean-state"}},
		{name: "non-blocking overlaps are fine",
			yaml:   "strategies:\n  token-budget: {}\n  long-running:\n    hooks: [SessionStart, PostToolUse:Bash]\n",
			loaded: []string{"token-budget", "long-running"}},
		{name: "unknown strategy and bad options load the rest",
			yaml:     "strategies:\n  speed-limit: {}\n  clean-state:\n    requre_files: [a]\n  token-budget:\n    warn_threshold: lots\n  output-location: {}\n",
			loaded:   []string{"output-location"},
			problems: []string{"config speed-limit", "config clean-state", "config token-budget"}, substr: "unknown strategy"},
		{name: "bad fail_mode and hook",
			yaml: "strategies:\n  clean-state:\n    fail_mode: ajar\n  long-running:\n    hooks: [PreToolUse:Bash]\n",
			// An unrecognised fail_mode counts as closed: the strategy runs.
			loaded:   []string{"clean-state"},
			problems: []string{"config clean-state", "config long-running"}, substr: "is not a hook this strategy uses"},
		{name: "total measure refuses percentages",
			yaml:     "strategies:\n  token-budget:\n    measure: total\n    warn_threshold: 50%\n",
			problems: []string{"config token-budget"}},
		{name: "not a map", yaml: "strategies: [clean-state]\n", problems: []string{"config "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := cfgFrom(t, tt.yaml)
			list, problems := Load(cfg)
			var names []string
			for _, l := range list {
				if l.Enabled {
					names = append(names, l.Name)
				}
			}
			if !reflect.DeepEqual(names, tt.loaded) {
				t.Errorf("loaded = %v, want %v", names, tt.loaded)
			}
			var got []string
			for _, p := range problems {
				got = append(got, p.Kind+" "+strings.Join(p.Strategies, ","))
			}
			if !reflect.DeepEqual(got, tt.problems) {
				t.Errorf("problems = %q, want %q", got, tt.problems)
			}
			if !reflect.DeepEqual(Validate(cfg), problems) {
				t.Error("Validate differs from Load's problems")
			}
			if tt.substr != "" {
				found := false
				for _, p := range problems {
					found = found || strings.Contains(p.Error(), tt.substr)
				}
				if !found {
					t.Errorf("no problem says %q: %v", tt.substr, problems)
				}
			}
		})
	}
}

func TestActive(t *testing.T) {
	cfg := cfgFrom(t, "strategies:\n  token-budget:\n    deny_agents_above: 85%\n    dry_run: true\n  clean-state:\n    enabled: false\n  output-location:\n    hooks: [SubagentStop]\n    fail_mode: closed\n")
	got := Active(cfg)
	want := []Info{
		{Name: "token-budget", Hooks: []string{"PostToolUse:*", "UserPromptSubmit", "PreToolUse:Agent", "PreToolUse:Task"}, FailMode: "open", DryRun: true},
		{Name: "output-location", Hooks: []string{"SubagentStop"}, FailMode: "closed"},
	}
	for i := range got {
		got[i].Description = ""
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Active = %+v\nwant %+v", got, want)
	}
	if Active(cfgFrom(t, "logs: {}\n")) != nil {
		t.Fatal("Active without strategies is not empty")
	}
}

// project is a temporary project with a session, for strategy tests.
type project struct {
	t      *testing.T
	layout state.Layout
	sess   *state.Session
	now    time.Time
}

func newProject(t *testing.T, withGit bool) *project {
	t.Helper()
	root := t.TempDir()
	l := state.Layout{Root: root}
	if err := os.MkdirAll(l.LogsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	p := &project{t: t, layout: l, now: time.Now().UTC().Add(-time.Minute)}
	p.sess = state.New("s1", root, p.now)
	p.sess.Starts = []state.Start{{Source: "startup", At: p.now}}
	if withGit {
		p.git("init", "-q", "-b", "main")
		p.write(".gitignore", ".spcstr/\n")
		p.write("README.md", "# x\n")
		p.git("add", "-A")
		p.git("commit", "-q", "-m", "init")
	}
	return p
}

func (p *project) git(args ...string) {
	p.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = p.layout.Root
	if out, err := cmd.CombinedOutput(); err != nil {
		p.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (p *project) write(rel, content string) {
	p.t.Helper()
	path := filepath.Join(p.layout.Root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func (p *project) input(name string, fields map[string]any) *gate.Input {
	p.t.Helper()
	payload := map[string]any{"hook_event_name": name, "session_id": "s1", "cwd": p.layout.Root}
	for k, v := range fields {
		payload[k] = v
	}
	raw, _ := json.Marshal(payload)
	ev, err := hookio.Decode(raw)
	if err != nil {
		p.t.Fatal(err)
	}
	p.now = p.now.Add(time.Second)
	return &gate.Input{Event: ev, Name: name, Session: p.sess, Layout: p.layout, Now: p.now, Getenv: func(string) string { return "" },
		RunCommands: true} // as the hook path: the commands may run
}

// gates builds the strategy gates of a config.
func (p *project) gates(yaml string) []gate.Gate {
	p.t.Helper()
	if err := os.WriteFile(p.layout.ConfigPath(), []byte(yaml), 0o644); err != nil {
		p.t.Fatal(err)
	}
	cfg, err := config.Load(p.layout.ConfigPath())
	if err != nil {
		p.t.Fatal(err)
	}
	return Gates(gate.Setup{Layout: p.layout, Config: cfg})
}

func run(t *testing.T, gates []gate.Gate, in *gate.Input) []gate.Verdict {
	t.Helper()
	var out []gate.Verdict
	for _, g := range gates {
		vs, err := g.Evaluate(context.Background(), in)
		if err != nil {
			t.Fatalf("%s: %v", g.Name(), err)
		}
		out = append(out, vs...)
	}
	return out
}

func TestGateWrapper(t *testing.T) {
	p := newProject(t, true)
	p.write("dirty.txt", "x")
	// One strategy in dry-run: its block is marked DryRun; fail_mode closed
	// does not make a dry-run strategy fail closed.
	gs := p.gates("strategies:\n  clean-state:\n    dry_run: true\n")
	if len(gs) != 1 || gs[0].Name() != "strategy:clean-state" || gs[0].FailClosed() {
		t.Fatalf("gates = %+v", gs)
	}
	vs := run(t, gs, p.input(hookio.Stop, nil))
	if len(vs) != 1 || vs[0].Decision != gate.Block || !vs[0].DryRun || vs[0].Source != "strategy:clean-state" || vs[0].Reason != "uncommitted-changes" {
		t.Fatalf("dry-run verdicts = %+v", vs)
	}
	// Enforced: fail_mode closed (clean-state's default) fails closed.
	gs = p.gates("strategies:\n  clean-state: {}\n")
	if !gs[0].FailClosed() {
		t.Fatal("clean-state does not fail closed by default")
	}
	if vs := run(t, gs, p.input(hookio.Stop, nil)); vs[0].DryRun || vs[0].Decision != gate.Block {
		t.Fatalf("enforced verdicts = %+v", vs)
	}
	// Hooks it does not use are not evaluated.
	if vs := run(t, gs, p.input(hookio.SubagentStop, map[string]any{"agent_type": "x"})); len(vs) != 0 {
		t.Fatalf("clean-state answered SubagentStop: %+v", vs)
	}
	// Two strategies that block at Stop: both enforced, no notice.
	gs = p.gates("strategies:\n  clean-state: {}\n  long-running:\n    require_progress: false\n")
	if len(gs) != 2 || gs[0].Name() != "strategy:clean-state" || !gs[0].FailClosed() {
		t.Fatalf("overlapping gates = %d %v", len(gs), gs[0].Name())
	}
	vs = run(t, gs, p.input(hookio.Stop, nil))
	blocks := 0
	for _, v := range vs {
		if v.Decision == gate.Block {
			blocks++
			if v.DryRun {
				t.Errorf("overlapping strategy not enforced: %+v", v)
			}
		}
		if v.SystemMessage != "" {
			t.Errorf("a notice for overlapping strategies: %+v", v)
		}
	}
	if blocks != 2 {
		t.Fatalf("overlapping verdicts = %+v", vs)
	}
	if gs := p.gates("feedback: {}\n"); gs != nil {
		t.Fatal("gates without strategies")
	}
	// Three strategies blocking at Stop: three blocks, nothing to say to
	// the user (a new project: a new session).
	p = newProject(t, true)
	p.write("dirty.txt", "x")
	gs = p.gates("strategies:\n  clean-state: {}\n  long-running:\n    require_progress: false\n  output-location: {}\n")
	msg := ""
	blocks = 0
	for _, v := range run(t, gs, p.input(hookio.Stop, nil)) {
		msg += v.SystemMessage
		if v.Decision == gate.Block && !v.DryRun {
			blocks++
		}
	}
	if blocks < 2 || strings.Contains(msg, "both block") || strings.Contains(msg, "without enforcing") {
		t.Errorf("%d blocks; messages:\n%s", blocks, msg)
	}
}
