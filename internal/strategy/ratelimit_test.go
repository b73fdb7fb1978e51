package strategy

import (
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/state"
)

// rate-limit gates on the windows spcstr statusline recorded: past a
// threshold it denies spawns (the default), every tool call, asks, or
// warns once per window; the reason names the reset time; a window past
// its reset, or no recorded window at all, is never gated.
func TestRateLimit(t *testing.T) {
	type ev struct {
		name, tool string
		five, week float64 // used percent (0: no window recorded)
		resetIn    time.Duration
	}
	tests := []struct {
		name   string
		yaml   string
		events []ev
		want   []string // per event: "" | "deny" | "ask" | "warn"
	}{
		{"deny-agents, the default", "strategies:\n  rate-limit:\n    five_hour: 80\n",
			[]ev{{"PreToolUse", "Agent", 79, 0, time.Hour}, {"PreToolUse", "Agent", 81, 0, time.Hour},
				{"PreToolUse", "Bash", 95, 0, time.Hour}, {"PreToolUse", "Task", 95, 0, -time.Minute}, {"PreToolUse", "Agent", 0, 0, 0}},
			[]string{"", "deny", "", "", ""}},
		{"deny every tool on the weekly window", "strategies:\n  rate-limit:\n    seven_day: 90\n    on_limit: deny\n",
			[]ev{{"PreToolUse", "Bash", 99, 89, time.Hour}, {"PreToolUse", "Read", 0, 90, time.Hour}},
			[]string{"", "deny"}},
		{"ask", "strategies:\n  rate-limit:\n    five_hour: 50\n    on_limit: ask\n",
			[]ev{{"PreToolUse", "Edit", 60, 0, time.Hour}},
			[]string{"ask"}},
		{"warn once per window", "strategies:\n  rate-limit:\n    five_hour: 50\n    on_limit: warn\n",
			[]ev{{"UserPromptSubmit", "", 60, 0, time.Hour}, {"PostToolUse", "Read", 70, 0, time.Hour}},
			[]string{"warn", ""}},
		{"dry run: decided, marked, not enforced", "strategies:\n  rate-limit:\n    five_hour: 50\n    dry_run: true\n",
			[]ev{{"PreToolUse", "Agent", 60, 0, time.Hour}},
			[]string{"deny (dry run)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, false)
			gs := p.gates(tt.yaml)
			base := p.now.Truncate(time.Second)
			for i, e := range tt.events {
				in := p.input(e.name, map[string]any{"tool_name": e.tool})
				p.sess.Live = &state.LiveCost{USD: 1}
				reset := base.Add(e.resetIn)
				if e.five > 0 {
					p.sess.Live.FiveHour = &state.RateWindow{UsedPercent: e.five, ResetsAt: reset}
				}
				if e.week > 0 {
					p.sess.Live.SevenDay = &state.RateWindow{UsedPercent: e.week, ResetsAt: reset}
				}
				got := ""
				for _, v := range run(t, gs, in) {
					switch {
					case v.Decision == gate.Deny || v.Decision == gate.Ask:
						got = v.Decision
						if !strings.Contains(v.Message, "resets at "+reset.Local().Format("Jan 2 15:04")) {
							t.Errorf("event %d: no reset time in %q", i, v.Message)
						}
						if v.DryRun {
							got += " (dry run)"
						}
					case strings.Contains(v.SystemMessage, "rate-limit:"):
						got = "warn"
					}
				}
				if got != tt.want[i] {
					t.Errorf("event %d (%s %s 5h %v%% 7d %v%%): got %q, want %q", i, e.name, e.tool, e.five, e.week, got, tt.want[i])
				}
			}
		})
	}
}
