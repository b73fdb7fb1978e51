package strategy

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// TestCommandStrategy runs command strategies through the verdict
// pipeline (gate.Run), each with fail_mode open and closed: what reaches
// Claude, and the record it leaves.
func TestCommandStrategy(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the commands are sh scripts")
	}
	abs, _ := filepath.Abs("testdata/hooks/deny.sh")
	tests := []struct {
		name    string
		command string // YAML value of command:
		hooks   string
		extra   string // more keys
		event   string
		fields  map[string]any
		// want* for fail_mode open / closed: substrings of the encoded
		// answer ("" = no answer), and the record's decision/enforcement.
		wantOpen, wantClosed string
		recOpen, recClosed   string
	}{
		{name: "deny (exit 2, a script reading the payload)", command: fmt.Sprintf("%q", abs), hooks: "[PreToolUse]", extra: "matcher: Bash",
			event: hookio.PreToolUse, fields: map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "git push --force"}},
			wantOpen:   `"permissionDecision":"deny","permissionDecisionReason":"no force pushes here"`,
			wantClosed: `"permissionDecision":"deny","permissionDecisionReason":"no force pushes here"`,
			recOpen:    "deny/enforced", recClosed: "deny/enforced"},
		{name: "the matcher leaves other tools alone", command: fmt.Sprintf("%q", abs), hooks: "[PreToolUse]", extra: "matcher: Bash",
			event: hookio.PreToolUse, fields: map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": "--force"}}},
		{name: "deny in JSON, argv form", command: `[sh, -c, 'echo "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"json says no\"}}"']`,
			hooks: "[PreToolUse]", event: hookio.PreToolUse, fields: map[string]any{"tool_name": "Bash"},
			wantOpen: `"permissionDecisionReason":"json says no"`, wantClosed: `"permissionDecisionReason":"json says no"`,
			recOpen: "deny/enforced", recClosed: "deny/enforced"},
		{name: "block a Stop", command: `'echo "{\"decision\":\"block\",\"reason\":\"tests are red\"}"'`, hooks: "[Stop]", event: hookio.Stop,
			wantOpen: `"decision":"block","reason":"tests are red"`, wantClosed: `"decision":"block","reason":"tests are red"`,
			recOpen: "block/enforced", recClosed: "block/enforced"},
		{name: "allow with context", command: `'echo "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"additionalContext\":\"remember the style guide\"}}"'`,
			hooks: "[PreToolUse]", event: hookio.PreToolUse, fields: map[string]any{"tool_name": "Bash"},
			wantOpen: `"additionalContext":"remember the style guide"`, wantClosed: `"additionalContext":"remember the style guide"`,
			recOpen: "allow/enforced", recClosed: "allow/enforced"},
		{name: "timeout", command: `'sleep 30'`, hooks: "[PreToolUse]", extra: "timeout: 0.3", event: hookio.PreToolUse, fields: map[string]any{"tool_name": "Bash"},
			wantOpen: "timed out after 300ms); its fail_mode is open", wantClosed: `"permissionDecision":"deny","permissionDecisionReason":"spcstr: strategy:mine could not decide (command timed out`,
			recOpen: "allow/failed-open", recClosed: "deny/failed-closed"},
		{name: "crash", command: `'echo oops >&2; kill -SEGV $$'`, hooks: "[Stop]", event: hookio.Stop,
			wantOpen: "command crashed", wantClosed: `"decision":"block","reason":"spcstr: strategy:mine could not decide (command crashed`,
			recOpen: "allow/failed-open", recClosed: "block/failed-closed"},
		{name: "exit 1 is a crash too", command: `'echo broken >&2; exit 1'`, hooks: "[Stop]", event: hookio.Stop,
			wantOpen: "exit status 1: broken", wantClosed: `"decision":"block"`,
			recOpen: "allow/failed-open", recClosed: "block/failed-closed"},
		{name: "non-JSON output", command: `'echo sure, go ahead'`, hooks: "[PreToolUse]", event: hookio.PreToolUse, fields: map[string]any{"tool_name": "Bash"},
			wantOpen: "not JSON", wantClosed: `"permissionDecision":"deny"`,
			recOpen: "allow/failed-open", recClosed: "deny/failed-closed"},
		{name: "10 MB of output", command: `'head -c 10485760 /dev/zero | tr "\\0" x'`, hooks: "[Stop]", event: hookio.Stop,
			wantOpen: "more than 1048576 bytes", wantClosed: `"decision":"block"`,
			recOpen: "allow/failed-open", recClosed: "block/failed-closed"},
		{name: "a background child holding stdout does not hold the answer", command: `'sleep 30 & echo "{\"decision\":\"block\",\"reason\":\"answered before the child\"}"'`,
			hooks: "[Stop]", event: hookio.Stop,
			wantOpen: `"decision":"block","reason":"answered before the child"`, wantClosed: `"decision":"block","reason":"answered before the child"`,
			recOpen: "block/enforced", recClosed: "block/enforced"},
		{name: "a background child holding stderr, exit 2", command: `'(sleep 30 >&2 &); echo held >&2; exit 2'`,
			hooks: "[Stop]", event: hookio.Stop,
			wantOpen: `"decision":"block","reason":"held"`, wantClosed: `"decision":"block","reason":"held"`,
			recOpen: "block/enforced", recClosed: "block/enforced"},
		{name: "keys are case-sensitive: decision wins over Decision", command: `'echo "{\"decision\":\"block\",\"Decision\":\"approve\",\"reason\":\"exact key\"}"'`,
			hooks: "[Stop]", event: hookio.Stop,
			wantOpen: `"decision":"block","reason":"exact key"`, wantClosed: `"decision":"block","reason":"exact key"`,
			recOpen: "block/enforced", recClosed: "block/enforced"},
		{name: "keys are case-sensitive: Decision alone is no decision", command: `'echo "{\"Decision\":\"block\",\"Reason\":\"wrong case\"}"'`,
			hooks: "[Stop]", event: hookio.Stop, recOpen: "allow/enforced", recClosed: "allow/enforced"},
		{name: "keys are case-sensitive inside hookSpecificOutput", command: `'echo "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"PermissionDecision\":\"allow\",\"permissionDecisionReason\":\"exact\"}}"'`,
			hooks: "[PreToolUse]", event: hookio.PreToolUse, fields: map[string]any{"tool_name": "Bash"},
			wantOpen: `"permissionDecision":"deny","permissionDecisionReason":"exact"`, wantClosed: `"permissionDecision":"deny","permissionDecisionReason":"exact"`,
			recOpen: "deny/enforced", recClosed: "deny/enforced"},
		{name: "a key given twice: the last wins, as in JSON.parse", command: `'echo "{\"decision\":\"approve\",\"decision\":\"block\",\"reason\":\"last\"}"'`,
			hooks: "[Stop]", event: hookio.Stop,
			wantOpen: `"decision":"block","reason":"last"`, wantClosed: `"decision":"block","reason":"last"`,
			recOpen: "block/enforced", recClosed: "block/enforced"},
		{name: "dry-run", command: `'echo no >&2; exit 2'`, hooks: "[Stop]", extra: "dry_run: true", event: hookio.Stop,
			wantOpen: "spcstr dry run: strategy:mine would block this stop (exit-2); not enforced", wantClosed: "would block this stop",
			recOpen: "block/dry-run", recClosed: "block/dry-run"},
	}
	for _, tt := range tests {
		for _, mode := range []string{"open", "closed"} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				p := newProject(t, false)
				yaml := fmt.Sprintf("strategies:\n  mine:\n    command: %s\n    hooks: %s\n    fail_mode: %s\n", tt.command, tt.hooks, mode)
				if tt.extra != "" {
					yaml += "    " + tt.extra + "\n"
				}
				gs := p.gates(yaml)
				if len(gs) != 1 {
					t.Fatalf("gates = %v for\n%s", gs, yaml)
				}
				res := gate.Run(context.Background(), gs, p.input(tt.event, tt.fields), gate.Policy{})
				want, rec := tt.wantOpen, tt.recOpen
				if mode == "closed" {
					want, rec = tt.wantClosed, tt.recClosed
				}
				got := string(res.Answer.Encode())
				if want == "" && got != "" || !strings.Contains(got, want) {
					t.Fatalf("answer %s\nwant %s", got, want)
				}
				var recs []string
				for _, r := range res.Records {
					recs = append(recs, r.Decision+"/"+r.Enforcement)
				}
				if strings.Join(recs, " ") != rec {
					t.Fatalf("records %v, want %s", recs, rec)
				}
			})
		}
	}
}

// A command runs in the project root with the payload on stdin, exactly
// as Claude Code gave it.
func TestCommandStrategyPayloadAndRoot(t *testing.T) {
	p := newProject(t, false)
	gs := p.gates("strategies:\n  mine:\n    command: 'pwd > seen-root; cat > seen-payload'\n    hooks: [Stop]\n")
	in := p.input(hookio.Stop, map[string]any{"extra_field": []any{1, "two"}})
	if _, err := gs[0].Evaluate(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	root, _ := os.ReadFile(filepath.Join(p.layout.Root, "seen-root"))
	payload, _ := os.ReadFile(filepath.Join(p.layout.Root, "seen-payload"))
	wantRoot, _ := filepath.EvalSymlinks(p.layout.Root)
	if strings.TrimSpace(string(root)) != wantRoot && strings.TrimSpace(string(root)) != p.layout.Root {
		t.Errorf("ran in %q, want %q", root, p.layout.Root)
	}
	if string(payload) != string(in.Event.Raw) {
		t.Errorf("payload %q, want %q", payload, in.Event.Raw)
	}
}

func TestCommandStrategyConfigErrors(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"strategies:\n  mine:\n    command: x\n", "lists the hooks"},
		{"strategies:\n  mine:\n    command: ''\n    hooks: [Stop]\n", "command is empty"},
		{"strategies:\n  mine:\n    command: {a: b}\n    hooks: [Stop]\n", "want a string"},
		{"strategies:\n  mine:\n    command: x\n    hooks: [Stop]\n    timeout: 9999\n", "timeout"},
		{"strategies:\n  mine:\n    command: x\n    hooks: [Stop]\n    matcher: '('\n", "matcher"},
		{"strategies:\n  mine:\n    command: x\n    hooks: [Nope]\n", "unknown hook"},
		{"strategies:\n  mine:\n    comand: x\n", "unknown strategy"},
		{"strategies:\n  mine:\n    command: x\n    hooks: [Stop]\n    version: 'one two'\n", "version"},
		{"strategies:\n  mine:\n    command: x\n    hooks: [Stop]\n    version: [1]\n", "Version"},
	} {
		_, problems := Load(cfgFrom(t, tt.yaml))
		if len(problems) != 1 || !strings.Contains(problems[0].Message, tt.want) {
			t.Errorf("%q: problems %v, want %q", tt.yaml, problems, tt.want)
		}
	}
	list, problems := Load(cfgFrom(t, "strategies:\n  mine:\n    command: [./x.sh, a]\n    hooks: [PreToolUse, Stop]\n    matcher: Bash|Write\n"))
	if len(problems) != 0 || len(list) != 1 || list[0].Description != "command: ./x.sh a" || list[0].FailMode != FailOpen ||
		len(list[0].Hooks) != 2 || !list[0].Hooks[0].Blocks {
		t.Fatalf("list %+v problems %v", list, problems)
	}
}

// A command strategy declares its version; without one it is FirstVersion,
// and a built-in's is its own.
func TestCommandStrategyVersion(t *testing.T) {
	list, problems := List(cfgFrom(t, "strategies:\n  mine:\n    command: x\n    hooks: [Stop]\n    version: 2.3.1\n"+
		"  plain:\n    command: y\n    hooks: [Stop]\n  long-running: {}\n"), nil)
	if len(problems) != 0 || len(list) != 3 {
		t.Fatalf("list %+v problems %v", list, problems)
	}
	for i, want := range []string{"2.3.1", FirstVersion, Version(NameLongRunning)} {
		if list[i].Version != want {
			t.Errorf("%s: version %q, want %q", list[i].Name, list[i].Version, want)
		}
	}
}

// A strategy whose options do not decode but whose section says
// fail_mode: closed is not silently left out: on its hooks it could not
// decide, and blocks.
func TestBrokenClosedStrategyFailsClosed(t *testing.T) {
	p := newProject(t, false)
	gs := p.gates("strategies:\n  clean-state:\n    fail_mode: closed\n    requre_files: [a]\n  mine:\n    command: x\n    hooks: [PreToolUse]\n    matcher: Bash\n    timeout: 9999\n    fail_mode: closed\n  token-budget:\n    warn_threshold: lots\n")
	res := gate.Run(context.Background(), gs, p.input(hookio.Stop, nil), gate.Policy{})
	if res.Answer.Decision != hookio.DecisionBlock || !strings.Contains(res.Answer.Reason, "strategy:clean-state could not decide") ||
		strings.Contains(res.Answer.Reason, "token-budget") {
		t.Fatalf("Stop answer = %+v", res.Answer)
	}
	res = gate.Run(context.Background(), gs, p.input(hookio.PreToolUse, map[string]any{"tool_name": "Bash"}), gate.Policy{})
	if h := res.Answer.HookSpecificOutput; h == nil || h.PermissionDecision != hookio.PermissionDeny || !strings.Contains(h.PermissionDecisionReason, "strategy:mine could not decide") {
		t.Fatalf("PreToolUse answer = %+v", res.Answer)
	}
	// A fail_mode open strategy with a problem stays out (the notice says so).
	res = gate.Run(context.Background(), gs, p.input(hookio.PreToolUse, map[string]any{"tool_name": "Agent"}), gate.Policy{})
	if h := res.Answer.HookSpecificOutput; h != nil && h.PermissionDecision != "" {
		t.Fatalf("Agent call = %+v", res.Answer)
	}
}

// A command strategy's matcher means what it means to Claude Code
// (hookio.Matcher): lists with `|` or `,` and spaces, unanchored regular
// expressions. Before, spcstr anchored every matcher, so a closed gate with
// "Edit,Write" never ran on a Write.
func TestCommandStrategyMatcher(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the commands are sh scripts")
	}
	for _, tt := range []struct {
		matcher string
		tool    string
		runs    bool
	}{
		{"Edit,Write", "Write", true},
		{"Edit | Write", "Write", true},
		{"rit.", "Write", true},
		{"rit.", "Edit", false},
		{"mcp__github__.*delete", "mcp__github__delete_repo", true},
		{"mcp__github__.*delete", "Write", false},
		{"Edit.*", "NotebookEdit", true},
		{"^Edit$", "NotebookEdit", false},
		{"Write", "TodoWrite", false},
		{"*", "Bash", true},
	} {
		p := newProject(t, false)
		gs := p.gates(fmt.Sprintf("strategies:\n  mine:\n    command: 'echo ran >&2; exit 2'\n    hooks: [PreToolUse]\n    matcher: %q\n    fail_mode: closed\n", tt.matcher))
		res := gate.Run(context.Background(), gs, p.input(hookio.PreToolUse, map[string]any{"tool_name": tt.tool}), gate.Policy{})
		h := res.Answer.HookSpecificOutput
		ran := h != nil && h.PermissionDecision == hookio.PermissionDeny && h.PermissionDecisionReason == "ran"
		if ran != tt.runs {
			t.Errorf("matcher %q on %s: ran %t, want %t (answer %s)", tt.matcher, tt.tool, ran, tt.runs, res.Answer.Encode())
		}
	}
}

// strategy validate warns of a matcher that can select no tool, and of a
// hook's matcher that does not compile.
func TestCommandStrategyMatcherWarnings(t *testing.T) {
	for _, tt := range []struct{ matcher, want string }{
		{"Edit|Write", ""},
		{"write", "no tool name Claude Code knows"},
		{"^Wirte$", "matches no tool"},
		{"mcp__github__.*delete", ""},
	} {
		p := newProject(t, false)
		cfg := cfgFrom(t, fmt.Sprintf("strategies:\n  mine:\n    command: x\n    hooks: [PreToolUse]\n    matcher: %q\n", tt.matcher))
		cfg.Path = filepath.Join(p.layout.Root, ".spcstr", "config.yaml")
		var got []string
		for _, pr := range Validate(cfg) {
			if pr.Kind != ProblemWarning {
				t.Errorf("%q: problem %v", tt.matcher, pr)
			}
			got = append(got, pr.Message)
		}
		if tt.want == "" && len(got) > 0 || tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)) {
			t.Errorf("%q: warnings %q, want %q", tt.matcher, got, tt.want)
		}
	}
	p := newProject(t, false)
	cfg := cfgFrom(t, "strategies:\n  mine:\n    command: x\n    hooks: [UserPromptSubmit, SessionEnd, Stop]\n    timeout: 40\n")
	cfg.Path = filepath.Join(p.layout.Root, ".spcstr", "config.yaml")
	var got []string
	for _, pr := range Validate(cfg) {
		got = append(got, pr.Message)
	}
	if len(got) != 2 || !strings.Contains(got[0], "timeout 40s cannot fit UserPromptSubmit's budget of 27s") ||
		!strings.Contains(got[1], "SessionEnd's budget of 9s") {
		t.Errorf("timeout warnings %q", got)
	}
	if _, problems := Load(cfgFrom(t, "strategies:\n  mine:\n    command: x\n    hooks: ['PreToolUse:Edit(']\n")); len(problems) != 1 {
		t.Errorf("a hook matcher that does not compile: problems %v", problems)
	}
}
