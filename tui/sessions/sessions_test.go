package sessions

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

func kp(s string) tea.KeyPressMsg {
	switch s {
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	}
	return tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
}

func rows() []Row {
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	mk := func(id, branch, status string, age time.Duration) Row {
		return Row{Summary: store.Summary{ID: id, Branch: branch, Status: status, Loaded: true, LastAt: now.Add(-age)}, Display: status}
	}
	return []Row{
		mk("cccc", "main", store.StatusEnded, time.Hour),
		mk("aaaa", "feature/x", store.StatusWorking, time.Second),
		mk("bbbb", "main", store.StatusIdle, time.Minute),
	}
}

func TestListKeys(t *testing.T) {
	m := New(theme.New(true, true))
	m.SetSize(40, 20)
	m.SetFocused(true)
	m.SetRows(rows())
	sel := func() string { r, _ := m.Selected(); return r.ID }
	if sel() != "aaaa" {
		t.Fatalf("newest first: selected %s", sel())
	}
	steps := []struct{ key, want string }{{"down", "bbbb"}, {"j", "cccc"}, {"j", "cccc"}, {"k", "bbbb"}, {"g", "aaaa"}, {"end", "cccc"}}
	for _, s := range steps {
		m.Update(kp(s.key))
		if sel() != s.want {
			t.Fatalf("after %s: %s, want %s", s.key, sel(), s.want)
		}
	}
	// The cursor stays on its session when rows are replaced.
	m.SetRows(rows())
	if sel() != "cccc" {
		t.Fatalf("after SetRows: %s", sel())
	}
	for _, k := range []string{"/", "m", "a", "i", "n"} {
		m.Update(kp(k))
	}
	if shown, total := m.Len(); shown != 2 || total != 3 || !m.Editing() {
		t.Fatalf("filter main: %d/%d editing %v", shown, total, m.Editing())
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "/main") {
		t.Fatalf("filter line missing:\n%s", v)
	}
	m.Update(kp("enter"))
	m.Update(kp("j")) // j moves again once the filter is kept
	if m.Editing() || m.Filter() != "main" || sel() != "cccc" {
		t.Fatalf("kept filter: editing %v filter %q sel %s", m.Editing(), m.Filter(), sel())
	}
	m.Update(kp("esc"))
	if shown, _ := m.Len(); shown != 3 || m.Filter() != "" {
		t.Fatalf("esc: %d shown, filter %q", shown, m.Filter())
	}
}

// TestSortOrders: s cycles needs you first (default), recent, cost.
func TestSortOrders(t *testing.T) {
	m := New(theme.New(true, true))
	m.SetSize(40, 20)
	m.SetPrices(pricing.Table{"m": {Input: 1}})
	rs := rows()
	rs[0].Display = store.StatusPermission // cccc: oldest, but waits
	rs[0].Model, rs[0].Tokens = "m", state.Tokens{Input: 1_000_000}
	rs[2].Model, rs[2].Tokens = "m", state.Tokens{Input: 2_000_000} // bbbb costs most
	m.SetRows(rs)
	order := func() string {
		var ids []string
		for _, i := range m.visible {
			ids = append(ids, m.rows[i].ID)
		}
		return strings.Join(ids, " ")
	}
	for _, want := range []struct {
		order Sort
		ids   string
	}{{SortNeedsInput, "cccc aaaa bbbb"}, {SortRecent, "aaaa bbbb cccc"}, {SortCost, "bbbb cccc aaaa"}, {SortNeedsInput, "cccc aaaa bbbb"}} {
		if m.Order() != want.order || order() != want.ids {
			t.Fatalf("order %v: %s, want %v: %s", m.Order(), order(), want.order, want.ids)
		}
		m.Update(kp("s"))
	}
}
