package state

import "time"

// LiveCost is what Claude Code hands its status line command every few
// seconds: its own running figure of the session (cumulative, as its
// result line), the session's token totals, the context in use and, for
// Pro/Max subscribers, the rate-limit windows.
type LiveCost struct {
	At  time.Time `json:"at"`
	USD float64   `json:"usd"`
	// Input and Output are context_window.total_input_tokens and
	// total_output_tokens: the session's totals so far.
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	// ContextPercent is context_window.used_percentage.
	ContextPercent float64 `json:"context_percent,omitempty"`
	// FiveHour and SevenDay are rate_limits.five_hour and seven_day (nil
	// when Claude Code sent none: an API key, not a subscription).
	FiveHour *RateWindow `json:"five_hour,omitempty"`
	SevenDay *RateWindow `json:"seven_day,omitempty"`
}

// RateWindow is one rate-limit window: how much of it is used and when
// it resets.
type RateWindow struct {
	UsedPercent float64   `json:"used_percent"`
	ResetsAt    time.Time `json:"resets_at,omitzero"`
}
