package strategy

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

// What rate-limit does past a threshold (on_limit).
const (
	LimitDenyAgents = "deny-agents" // deny Agent/Task spawns (default)
	LimitDeny       = "deny"        // deny every tool call
	LimitWarn       = "warn"        // warn, once per window and reset
	LimitAsk        = "ask"         // ask the user before each tool call
)

type rateLimitOptions struct {
	Common `yaml:",inline"`
	// FiveHour and SevenDay are thresholds in percent of Claude Code's
	// 5-hour and weekly rate-limit windows (0: that window unwatched).
	FiveHour float64 `yaml:"five_hour"`
	SevenDay float64 `yaml:"seven_day"`
	// OnLimit is LimitDenyAgents, LimitDeny, LimitWarn or LimitAsk.
	OnLimit string `yaml:"on_limit"`
}

// rateLimit gates on the rate-limit windows Claude Code hands its status
// line (Pro/Max subscribers), as spcstr statusline recorded them
// (state.Session.Live): a session without them is never gated.
type rateLimit struct{ o rateLimitOptions }

func buildRateLimit(n ast.Node, _ *config.Config) (Strategy, Common, error) {
	var o rateLimitOptions
	if err := decodeStrict(n, &o); err != nil {
		return nil, o.Common, err
	}
	for key, v := range map[string]float64{"five_hour": o.FiveHour, "seven_day": o.SevenDay} {
		if v < 0 || v > 100 {
			return nil, o.Common, at(n, key, fmt.Errorf("%s: want a percentage of the window, 1 to 100", key))
		}
	}
	if o.FiveHour == 0 && o.SevenDay == 0 {
		return nil, o.Common, fmt.Errorf("rate-limit: set five_hour or seven_day (percent of Claude Code's rate-limit window)")
	}
	switch o.OnLimit {
	case "":
		o.OnLimit = LimitDenyAgents
	case LimitDenyAgents, LimitDeny, LimitWarn, LimitAsk:
	default:
		return nil, o.Common, at(n, "on_limit", fmt.Errorf("on_limit %q: want %s, %s, %s or %s", o.OnLimit, LimitDenyAgents, LimitDeny, LimitWarn, LimitAsk))
	}
	return &rateLimit{o: o}, o.Common, nil
}

func (s *rateLimit) Hooks() []Hook {
	switch s.o.OnLimit {
	case LimitDenyAgents:
		return []Hook{{Event: hookio.PreToolUse, Tool: "Agent", Blocks: true}, {Event: hookio.PreToolUse, Tool: "Task", Blocks: true}}
	case LimitWarn:
		return []Hook{{Event: hookio.UserPromptSubmit}, {Event: hookio.PostToolUse, Tool: "*"}}
	}
	return []Hook{{Event: hookio.PreToolUse, Tool: "*", Blocks: true}}
}

// over names the first window past its threshold, with its reset time
// ("" when none is).
func (s *rateLimit) over(live *state.LiveCost, now time.Time) (key, text string) {
	if live == nil {
		return "", ""
	}
	for _, w := range []struct {
		name, key string
		limit     float64
		win       *state.RateWindow
	}{{"5-hour", "five_hour", s.o.FiveHour, live.FiveHour}, {"weekly", "seven_day", s.o.SevenDay, live.SevenDay}} {
		if w.limit == 0 || w.win == nil || w.win.UsedPercent < w.limit {
			continue
		}
		reset := ""
		if !w.win.ResetsAt.IsZero() {
			reset = fmt.Sprintf("; it resets at %s (in %s)", w.win.ResetsAt.Local().Format("Jan 2 15:04"),
				w.win.ResetsAt.Sub(now).Round(time.Minute))
			if !w.win.ResetsAt.After(now) {
				continue // the window has reset since Claude Code said so
			}
		}
		key = w.key + ":" + w.win.ResetsAt.UTC().Format(time.RFC3339)
		return key, fmt.Sprintf("the %s rate-limit window is %.0f%% used (threshold %.0f%%)%s", w.name, w.win.UsedPercent, w.limit, reset)
	}
	return "", ""
}

func (s *rateLimit) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	key, over := s.over(in.Session.Live, in.Now)
	if over == "" {
		return nil, nil
	}
	switch s.o.OnLimit {
	case LimitWarn:
		if in.Event.AgentID != "" || !in.Session.Note("rate-limit:"+key) {
			return nil, nil // once per window and reset, to the main chain
		}
		text := "spcstr rate-limit: " + over + "."
		return []gate.Verdict{{Context: text + " Keep the remaining work focused.", SystemMessage: text}}, nil
	case LimitAsk:
		return []gate.Verdict{{Decision: gate.Ask, Reason: "rate-limit",
			Message: "spcstr rate-limit: " + over + ". Go on with this tool call?"}}, nil
	case LimitDenyAgents:
		if !hookio.IsSubagentTool(in.Event.ToolName) {
			return nil, nil
		}
	}
	what := "tool call"
	if s.o.OnLimit == LimitDenyAgents {
		what = "agent spawn"
	}
	return []gate.Verdict{{Decision: gate.Deny, Reason: "rate-limit",
		Message:       "RATE LIMIT: " + over + ". Do not start more work of this kind; tell the user where the work stands.",
		SystemMessage: "spcstr rate-limit: " + what + " denied, " + strings.TrimSuffix(over, ".") + "."}}, nil
}
