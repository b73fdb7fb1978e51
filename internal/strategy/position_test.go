package strategy

import (
	"strings"
	"testing"
)

// TestConfigErrorPositions: every configuration error of a strategy names
// its line and column in config.yaml itself, not in the strategy's own
// section.
func TestConfigErrorPositions(t *testing.T) {
	head := "context_window: 200000\ndry_run: false\nstrategies:\n"
	tests := []struct {
		name, body string
		want       string // the whole first line of the problem
	}{
		{"unknown option", "  clean-state:\n    require_files: [README.md]\n    bogus: 1\n",
			`config.yaml:6:5: strategies.clean-state: unknown field "bogus"`},
		{"option of the wrong type", "  token-budget:\n    deny_agents_requires: 5\n",
			`config.yaml:5:27: strategies.token-budget: `},
		{"bad threshold", "  token-budget:\n    warn_threshold: 75%\n    critical_threshold: lots\n",
			`config.yaml:6:25: strategies.token-budget: bad threshold "lots": want a positive token count or N%`},
		{"bad measure", "  token-budget:\n    measure: vibes\n",
			`config.yaml:5:14: strategies.token-budget: measure "vibes": want context or total`},
		{"bad fail_mode", "  notify:\n    bell: true\n    fail_mode: sideways\n",
			`config.yaml:6:16: strategies.notify: fail_mode "sideways": want open or closed`},
		{"hook the strategy does not use", "  clean-state:\n    hooks: [Stop, SessionStart]\n",
			`config.yaml:5:12: strategies.clean-state: hooks: "SessionStart" is not a hook this strategy uses`},
		{"unknown strategy", "  notify:\n    bell: true\n  token-budgets: {}\n",
			`config.yaml:6:3: strategies.token-budgets: unknown strategy`},
		{"a check after decoding, no key", "  notify:\n    command: \"\"\n",
			`config.yaml:4:3: strategies.notify: set bell: true, a command, or both`},
		{"bad duration", "  escalation-advisor:\n    commands: [\"true\"]\n    timeout: soon\n",
			`config.yaml:6:14: strategies.escalation-advisor: "soon": want seconds (90) or a duration ("90s")`},
		{"strategies not a mapping", "  - notify\n",
			`config.yaml:4:3: strategies: must be a mapping of strategy names`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := Validate(cfgFrom(t, head+tt.body))
			if len(problems) != 1 {
				t.Fatalf("problems %v, want one", problems)
			}
			got := problems[0].Message
			if strings.Contains(got, "\n") {
				t.Errorf("message spans lines: %q", got)
			}
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("message\n %q\nwant it to start with\n %q", got, tt.want)
			}
		})
	}
}
