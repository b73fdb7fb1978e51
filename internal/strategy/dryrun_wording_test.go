package strategy

import (
	"context"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

// TestDryRunWording: a message saying that something was denied or blocked
// is shown only when it was. Under dry-run (the strategy's own, or the
// global one) the user reads "would deny" / "would block" and Claude is
// told nothing; enforced, the strategy's own words stand.
func TestDryRunWording(t *testing.T) {
	spawnDeny := "strategies:\n  token-budget:\n    deny_agents_above: 85%\n"
	stopBlock := "strategies:\n  clean-state:\n    require_files: [MISSING.md]\n"
	tests := []struct {
		name, yaml string
		dryEnv     bool
		event      string
		tool       string
		enforced   bool
		user       []string // the answer's systemMessage contains each
		notUser    []string // and none of these
	}{
		{"compaction gate, enforced", spawnDeny, false, hookio.PreToolUse, "Agent", true,
			[]string{"agent spawn denied", "Run /compact"}, []string{"would deny"}},
		{"compaction gate, global dry-run", spawnDeny, true, hookio.PreToolUse, "Agent", false,
			[]string{"spcstr dry run: strategy:token-budget would deny this Agent call at PreToolUse (context-over-limit:90%); not enforced"},
			[]string{"denied", "/compact", "COMPACTION"}},
		{"compaction gate, the strategy's dry_run", spawnDeny + "    dry_run: true\n", false, hookio.PreToolUse, "Task", false,
			[]string{"would deny this Task call"}, []string{"denied", "/compact", "COMPACTION"}},
		{"clean-state, enforced", stopBlock, false, hookio.Stop, "", true, nil, []string{"would block"}},
		{"clean-state, global dry-run", stopBlock, true, hookio.Stop, "", false,
			[]string{"spcstr dry run: strategy:clean-state would block this stop (missing-files,uncommitted-changes); not enforced"}, nil},
		{"long-running's uncommitted warning holds either way", "strategies:\n  long-running:\n    enforce_commits: false\n    dry_run: true\n", false, hookio.Stop, "", false,
			[]string{"would block this stop (progress-not-updated)", "spcstr long-running: Uncommitted changes in: work.go"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, true)
			p.write("work.go", "package x\n")
			p.sess.Files.New = []string{"work.go"}
			p.sess.Tokens = state.Tokens{ContextUsed: 180_000, ContextWindow: 200_000}
			gs := p.gates(tt.yaml)
			f := map[string]any{}
			if tt.tool != "" {
				f["tool_name"] = tt.tool
			}
			in := p.input(tt.event, f)
			in.Getenv = func(k string) string {
				if k == "SPCSTR_DRY_RUN" && tt.dryEnv {
					return "1"
				}
				return ""
			}
			res := gate.Run(context.Background(), gs, in, gate.Policy{})
			a := res.Answer
			enforced := a.Decision == hookio.DecisionBlock ||
				a.HookSpecificOutput != nil && a.HookSpecificOutput.PermissionDecision == hookio.PermissionDeny
			if enforced != tt.enforced {
				t.Fatalf("enforced = %v, want %v: %s", enforced, tt.enforced, a.Encode())
			}
			if !tt.enforced && a.HookSpecificOutput != nil && a.HookSpecificOutput.AdditionalContext != "" {
				t.Errorf("Claude is told about a decision that was not taken: %s", a.Encode())
			}
			for _, w := range tt.user {
				if !strings.Contains(a.SystemMessage, w) {
					t.Errorf("systemMessage %q lacks %q", a.SystemMessage, w)
				}
			}
			for _, w := range tt.notUser {
				if strings.Contains(a.SystemMessage, w) {
					t.Errorf("systemMessage %q says %q", a.SystemMessage, w)
				}
			}
			if len(res.Records) == 0 || res.Records[0].DryRun == tt.enforced {
				t.Errorf("records %+v", res.Records)
			}
		})
	}
}
