package detail

import (
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
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
