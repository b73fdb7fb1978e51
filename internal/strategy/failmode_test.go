package strategy

import (
	"context"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// Every way found to switch a closed gate off with one bad value: the
// config is read structurally, an unrecognised fail_mode counts as closed,
// and a strategy whose own settings are unusable keeps its fail mode (or
// its default) and, closed, denies or blocks what it covers with the
// config error as the reason, leaving a decision record. Other strategies
// are not affected.
func TestBadValueKeepsFailMode(t *testing.T) {
	write := map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": "a.go"}}
	bash := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}}
	tests := []struct {
		name   string
		yaml   string
		event  string
		fields map[string]any
		// want: "deny" / "block" (failed closed, the reason quoting
		// wantWhy), or "" (no deny or block).
		want, wantWhy string
		// problem is a substring of the one problem Load reports.
		problem string
	}{
		{name: "fail_mode: Closed counts as closed, and the strategy runs", yaml: "strategies:\n  mine:\n    command: 'exit 1'\n    hooks: [Stop]\n    fail_mode: Closed\n",
			event: hookio.Stop, want: "block", wantWhy: "command crashed", problem: `fail_mode "Closed": want open or closed`},
		{name: "a fail_mode typo counts as closed", yaml: "strategies:\n  mine:\n    command: 'exit 1'\n    hooks: [Stop]\n    fail_mode: clsoed\n",
			event: hookio.Stop, want: "block", wantWhy: "command crashed", problem: `fail_mode "clsoed"`},
		{name: "a fail_mode list counts as closed", yaml: "strategies:\n  mine:\n    command: 'exit 1'\n    hooks: [Stop]\n    fail_mode: [closed]\n",
			event: hookio.Stop, want: "block", wantWhy: "configuration is unusable", problem: "5:16"},
		{name: "fail_mode: open stays open", yaml: "strategies:\n  mine:\n    command: 'exit 1'\n    hooks: [Stop]\n    fail_mode: open\n",
			event: hookio.Stop},
		{name: "quoted closed", yaml: "strategies:\n  mine:\n    command: 'exit 1'\n    hooks: [Stop]\n    fail_mode: \"closed\"\n",
			event: hookio.Stop, want: "block", wantWhy: "command crashed"},
		{name: "stop_block_limit: -1, fail_mode: closed", yaml: "strategies:\n  quality-gate:\n    fail_mode: closed\n    stop_block_limit: -1\n",
			event: hookio.Stop, want: "block", wantWhy: "stop_block_limit -1", problem: "stop_block_limit -1"},
		{name: "stop_block_limit: three, fail_mode: closed", yaml: "strategies:\n  quality-gate:\n    fail_mode: closed\n    stop_block_limit: three\n",
			event: hookio.Stop, want: "block", wantWhy: "configuration is unusable", problem: "quality-gate"},
		{name: "clean-state is closed by default: stop_block_limit: -1", yaml: "strategies:\n  clean-state:\n    stop_block_limit: -1\n",
			event: hookio.Stop, want: "block", wantWhy: "stop_block_limit -1", problem: "stop_block_limit"},
		{name: "clean-state require_files as a string", yaml: "strategies:\n  clean-state:\n    require_files: README.md\n",
			event: hookio.Stop, want: "block", wantWhy: "strategy:clean-state could not decide", problem: "clean-state"},
		{name: "clean-state with fail_mode: open and a bad value stays open", yaml: "strategies:\n  clean-state:\n    fail_mode: open\n    require_files: README.md\n",
			event: hookio.Stop, problem: "clean-state"},
		{name: "a misspelt hooks: entry of a built-in", yaml: "strategies:\n  quality-gate:\n    fail_mode: closed\n    hooks: [Stpo]\n",
			event: hookio.Stop, want: "block", wantWhy: "unknown hook", problem: "Stpo"},
		{name: "a hooks: entry the built-in does not use", yaml: "strategies:\n  clean-state:\n    hooks: [PreToolUse]\n",
			event: hookio.Stop, want: "block", wantWhy: "not a hook this strategy uses", problem: "not a hook"},
		{name: "a misspelt hooks: entry of a command keeps the hooks that parse", yaml: "strategies:\n  mine:\n    command: 'exit 0'\n    hooks: [PreToolUse, Stpo]\n    matcher: Write\n    fail_mode: closed\n",
			event: hookio.PreToolUse, fields: write, want: "deny", wantWhy: "unknown hook", problem: "Stpo"},
		{name: "... and its matcher", yaml: "strategies:\n  mine:\n    command: 'exit 0'\n    hooks: [PreToolUse, Stpo]\n    matcher: Write\n    fail_mode: closed\n",
			event: hookio.PreToolUse, fields: bash, problem: "Stpo"},
		{name: "flow style, closed, a bad timeout", yaml: "strategies:\n  mine: {command: 'exit 0', hooks: [PreToolUse], matcher: 'Edit,Write', timeout: lots, fail_mode: closed}\n",
			event: hookio.PreToolUse, fields: write, want: "deny", wantWhy: "strategy:mine could not decide", problem: "mine"},
		{name: "flow style next to a top-level type error", yaml: "stop_block_limit: three\nstrategies: {mine: {command: 'exit 1', hooks: [Stop], fail_mode: closed}}\n",
			event: hookio.Stop, want: "block", wantWhy: "command crashed"},
		{name: "a broken closed strategy that is disabled stays off", yaml: "strategies:\n  clean-state:\n    enabled: false\n    require_files: README.md\n",
			event: hookio.Stop, problem: "clean-state"},
		{name: "a broken closed strategy in dry-run does not block", yaml: "strategies:\n  clean-state:\n    dry_run: true\n    require_files: README.md\n",
			event: hookio.Stop, problem: "clean-state"},
		{name: "one bad value does not switch off another strategy", yaml: "strategies:\n  quality-gate:\n    fail_mode: open\n    stop_block_limit: three\n  mine:\n    command: 'echo held >&2; exit 2'\n    hooks: [Stop]\n",
			event: hookio.Stop, want: "block", wantWhy: "held", problem: "quality-gate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, false)
			if err := writeConfig(p, tt.yaml); err != nil {
				t.Fatal(err)
			}
			cfg, cerr := config.Load(p.layout.ConfigPath())
			var problems []Problem
			if _, problems = Load(cfg); tt.problem == "" && len(problems) > 0 ||
				tt.problem != "" && (len(problems) != 1 || !strings.Contains(problems[0].Message, tt.problem)) {
				t.Fatalf("problems %v, want one with %q (config error %v)", problems, tt.problem, cerr)
			}
			gs := Gates(gate.Setup{Layout: p.layout, Config: cfg, ConfigErr: cerr})
			res := gate.Run(context.Background(), gs, p.input(tt.event, tt.fields), gate.Policy{})
			got, why := "", ""
			switch a := res.Answer; {
			case a.Decision == hookio.DecisionBlock:
				got, why = "block", a.Reason
			case a.HookSpecificOutput != nil && a.HookSpecificOutput.PermissionDecision == hookio.PermissionDeny:
				got, why = "deny", a.HookSpecificOutput.PermissionDecisionReason
			}
			if got != tt.want || !strings.Contains(why, tt.wantWhy) {
				t.Fatalf("answer %s\nwant %s quoting %q", res.Answer.Encode(), tt.want, tt.wantWhy)
			}
			if tt.want != "" {
				rec := false
				for _, r := range res.Records {
					rec = rec || r.Decision == tt.want
				}
				if !rec {
					t.Fatalf("no %s record in %+v", tt.want, res.Records)
				}
			}
		})
	}
}

func writeConfig(p *project, yaml string) error {
	p.write(".spcstr/config.yaml", yaml)
	return nil
}
