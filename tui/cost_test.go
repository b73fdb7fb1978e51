package tui

import (
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/store"
)

// The header's totals count a fork's copy of its parent's history once:
// the fork's figure (Claude Code's, which includes the copy) less the
// estimated cost of what it inherited.
func TestCostTotalsFork(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.Local)
	parentUsage := map[string]state.ModelUsage{"claude-opus-5-5": {Output: 50_000}} // $1.00 at $20/M output
	parent := store.Summary{ID: "p", Loaded: true, LastAt: now.Add(-48 * time.Hour),
		ClaudeCost: &state.ClaudeCost{USD: 1.00}, Tokens: state.Tokens{Output: 50_000, ByModel: parentUsage}}
	fork := store.Summary{ID: "f", Loaded: true, LastAt: now,
		ClaudeCost: &state.ClaudeCost{USD: 1.50}, Inherited: parentUsage,
		Tokens: state.Tokens{Output: 75_000, ByModel: map[string]state.ModelUsage{"claude-opus-5-5": {Output: 75_000}}}}
	prices := pricing.Default()
	tests := []struct {
		name string
		sums []store.Summary
		want string
	}{
		{"parent and fork", []store.Summary{parent, fork}, "today $0.50 · all $1.50"},
		{"no fork", []store.Summary{parent}, "today $0 · all $1.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := costTotals(prices, tt.sums, now); got != tt.want {
				t.Errorf("costTotals = %q, want %q", got, tt.want)
			}
		})
	}
}
