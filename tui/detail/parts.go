package detail

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/chart"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

// The pane's drawing helpers: tool bars, todo marks, wrapped lines, the
// files listed once, the cost line.

func toolBars(st *theme.Styles, tools map[string]int, w int) []string {
	if len(tools) == 0 {
		return []string{text.Fit(st.Faint.Render(" none yet"), w)}
	}
	names := slices.Collect(maps.Keys(tools))
	sort.Slice(names, func(i, j int) bool {
		if tools[names[i]] != tools[names[j]] {
			return tools[names[i]] > tools[names[j]]
		}
		return names[i] < names[j]
	})
	peak, nameW := 0, 4
	for _, n := range names {
		peak = max(peak, tools[n])
		nameW = max(nameW, text.Width(n))
	}
	nameW = min(nameW, max(w/3, 6))
	var out []string
	for _, n := range names {
		cnt := fmt.Sprintf(" %d", tools[n])
		bw := max(w-1-nameW-1-len(cnt), 1)
		bar := chart.Bar(tools[n], peak, bw)
		out = append(out, text.Fit(" "+text.Fit(n, nameW)+" "+st.Bar.Render(bar)+cnt, w))
	}
	return out
}

func todoMark(st *theme.Styles, status string) string {
	switch status {
	case "completed":
		return st.OK.Render("✓")
	case "in_progress":
		return st.Working.Render("◐")
	case "deleted":
		return st.Faint.Render("✗")
	}
	return st.Faint.Render("○")
}

func wrapIndent(line string, w, indent int) []string {
	if text.Width(line) <= w {
		return []string{line}
	}
	parts := text.Wrap(line, max(w-indent, 8))
	out := make([]string, 0, len(parts))
	for i, p := range parts {
		if i > 0 {
			p = strings.Repeat(" ", indent) + p
		}
		out = append(out, text.Fit(p, w))
		if i == 3 {
			break
		}
	}
	return out
}

// file is one path of the Files section and how it was touched: "+"
// created, "~" edited, "·" only read.
type file struct{ how, path string }

// filesOnce lists each path once, with the strongest way it was touched
// (created over edited over read), created files first, then edited, then
// read, each in first-seen order.
func filesOnce(f state.Files) []file {
	seen := map[string]bool{}
	var out []file
	for _, l := range []struct {
		how   string
		paths []string
	}{{"+", f.New}, {"~", f.Edited}, {"·", f.Read}} {
		for _, p := range l.paths {
			if !seen[p] {
				seen[p] = true
				out = append(out, file{l.how, p})
			}
		}
	}
	return out
}

// cost writes the estimated cost of the tokens, or why there is none.
func (m *Model) cost(t state.Tokens, model string) string {
	st := m.styles
	e := m.prices.Cost(t, model)
	if e.Priced {
		return pricing.Format(e.USD) + st.Faint.Render(" estimate")
	}
	if len(e.Unpriced) > 0 {
		return st.Faint.Render("no price for " + strings.Join(e.Unpriced, ", ") + ": tokens only")
	}
	return ""
}

// lastAt is when the session's last event came.
func lastAt(s *state.Session, now time.Time) time.Time {
	switch {
	case !s.LastEventAt.IsZero():
		return s.LastEventAt
	case !s.UpdatedAt.IsZero():
		return s.UpdatedAt
	}
	return now
}

func rel(p string) string { return filepath.ToSlash(p) }

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func lastN[T any](xs []T, n int) []T {
	if len(xs) <= n {
		return xs
	}
	return xs[len(xs)-n:]
}
