package detail

import (
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

// A fork's detail pane shows its own figure (Claude Code's, copy
// included) and says what of it it inherited, and from whom; a session
// that is no fork says nothing of the kind.
func TestCostLinesFork(t *testing.T) {
	m := New(theme.New(true, true))
	m.SetPrices(pricing.Default())
	s := state.New("fork-1", "/p", time.Unix(1700000000, 0))
	s.ClaudeCost = &state.ClaudeCost{USD: 1.5}
	got := strings.Join(m.costLines(s), "\n")
	if strings.Contains(got, "forked") {
		t.Errorf("no fork, yet: %q", got)
	}
	s.ForkedFrom = "0123456789abcdef"
	s.Inherited = map[string]state.ModelUsage{"claude-opus-5-5": {Output: 50_000}} // $1.00
	got = strings.Join(m.costLines(s), "\n")
	if !strings.Contains(got, "$1.50") || !strings.Contains(got, "forked from 01234567: $1.00 of it inherited") {
		t.Errorf("fork's cost lines: %q", got)
	}
}

// One figure, one set of tokens: beside Claude Code's figure the detail
// pane shows Claude Code's own counts (a compaction's request included),
// not the transcripts' smaller ones.
func TestTokensBesideFigure(t *testing.T) {
	m := New(theme.New(true, true))
	m.SetPrices(pricing.Default())
	m.SetSize(120, 60)
	s := state.New("s-1", "/p", time.Unix(1700000000, 0))
	s.Tokens = state.Tokens{Input: 92_700, Output: 1_000}
	s.ClaudeCost = &state.ClaudeCost{USD: 1.2, ByModel: map[string]state.ClaudeModelCost{"claude-opus-5-5": {Input: 196_700, Output: 1_500, USD: 1.2}}}
	m.SetSession(store.Summary{Loaded: true}, store.StatusWaiting, s, time.Unix(1700000100, 0))
	got := strings.Join(m.render(time.Unix(1700000100, 0)), "\n")
	if !strings.Contains(got, "in 196.7k") || strings.Contains(got, "92.7k") {
		t.Errorf("tokens beside Claude Code's figure are not its own:\n%s", got)
	}
}
