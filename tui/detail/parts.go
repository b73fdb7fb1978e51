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
	"github.com/dylan-gluck/spcstr/internal/termtext"
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

// costLines writes the session's cost and where it comes from (Claude
// Code's own figure or spcstr's estimate), then where the money went: by
// model when there are several, and by subagent (its transcript's usage).
func (m *Model) costLines(s *state.Session) []string {
	st := m.styles
	sc := m.prices.Session(s)
	var lines []string
	switch {
	case sc.Known():
		label := " estimate"
		switch sc.Source {
		case pricing.SourceClaudeCode:
			label = " Claude Code's figure"
		case pricing.SourceClaudeCodeLive:
			label = " Claude Code's live figure"
		}
		lines = append(lines, termtext.Strip(sc.String())+st.Faint.Render(label))
	case len(sc.Unpriced) > 0:
		lines = append(lines, st.Faint.Render(termtext.Strip("≥ $0: no price for "+strings.Join(sc.Unpriced, ", ")+": tokens only")))
	}
	if sc.ClaudeGuessUSD > 0 {
		// Claude Code priced a model it did not know at another model's
		// rates: shown apart, never as the figure.
		lines = append(lines, st.Faint.Render(termtext.Strip(fmt.Sprintf("Claude Code's guess: %s (a model it has no price for, at another model's rates)", pricing.Format(sc.ClaudeGuessUSD)))))
	}
	if sc.InheritedUSD > 0 || s.ForkedFrom != "" {
		// A fork: Claude Code's figure includes its parent's at the fork
		// point, which the totals count in the parent (docs/cost.md).
		from := s.ForkedFrom
		if len(from) > 8 {
			from = from[:8]
		}
		lines = append(lines, st.Faint.Render(termtext.Strip(fmt.Sprintf("forked from %s: %s of it inherited", from, pricing.Format(sc.InheritedUSD)))))
	}
	if len(sc.Models) > 1 || sc.InheritedUSD > 0 {
		for _, mc := range sc.Models {
			inh := ""
			switch {
			case mc.OnlyInherited():
				inh = " (inherited: the parent's)"
			case mc.InheritedUSD > 0:
				inh = fmt.Sprintf(" (%s inherited)", pricing.Format(mc.InheritedUSD))
			}
			lines = append(lines, st.Faint.Render(termtext.Strip(fmt.Sprintf("%s %s out %s%s", mc.Model, usdOrNone(mc.USD, mc.Priced), text.Count(mc.Tokens.Output), inh))))
		}
	}
	for _, a := range s.AgentsHistory {
		by := s.AgentUsage(a.AgentID)
		if by == nil {
			continue
		}
		ac := m.prices.Usage(by, state.Tokens{}, "")
		kind := "fg"
		if a.Background {
			kind = "bg"
		}
		name := a.AgentType
		if name == "" {
			name = a.Name
		}
		v := ac.String()
		if v == "" {
			v = "no price"
		}
		lines = append(lines, st.Faint.Render(termtext.Strip(fmt.Sprintf("↳ %s (%s) %s in %s out %s", name, kind, v,
			text.Count(ac.Tokens.Input+ac.Tokens.CacheRead+ac.Tokens.CacheCreation), text.Count(ac.Tokens.Output)))))
	}
	return lines
}

// usdOrNone is a model's cost, or "no price".
func usdOrNone(usd float64, priced bool) string {
	if !priced {
		return "no price"
	}
	return pricing.Format(usd)
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
