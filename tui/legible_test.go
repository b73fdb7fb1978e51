package tui

import (
	"strings"
	"testing"
)

// TestFooterKeepsHelpAndQuit: at every width and in every pane the footer
// ends with "? keys" and "q quit"; the other hints go first.
func TestFooterKeepsHelpAndQuit(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	for _, w := range []int{40, 60, 120} {
		m := start(t, f, w, 30)
		for _, k := range []string{"1", "2", "3", "4", "5"} {
			m = send(t, m, press(k)...)
			lines := strings.Split(plain(m), "\n")
			foot := lines[len(lines)-1]
			if !strings.Contains(foot, "? keys") || !strings.Contains(foot, "q quit") {
				t.Errorf("width %d, pane %s: footer %q lacks ? keys or q quit", w, k, foot)
			}
			if strings.Contains(foot, "…") {
				t.Errorf("width %d, pane %s: footer %q is cut", w, k, foot)
			}
		}
	}
}

// TestLegibleGolden: help and the list's footer at 40, 60 and 120 columns.
func TestLegibleGolden(t *testing.T) {
	cases := []struct {
		name string
		keys []string
	}{
		{"legible-list", nil},
		{"legible-help", []string{"?"}},
		{"legible-help-legend", []string{"?", "G"}},
	}
	for _, w := range []int{40, 60, 120} {
		for _, c := range cases {
			name := c.name + "-" + itoa(w)
			t.Run(name, func(t *testing.T) {
				f := newFixture(t)
				f.populate(t)
				f.strategies(t)
				m := start(t, f, w, 32)
				m = send(t, m, press(c.keys...)...)
				fr := frame(t, m)
				checkSize(t, name, fr, w, 32)
				golden(t, name, fr)
			})
		}
	}
}

// TestHelpExplainsTheRow: every abbreviation a row and the header show is
// in the help.
func TestHelpExplainsTheRow(t *testing.T) {
	f := newFixture(t)
	m := start(t, f, 120, 200)
	m = send(t, m, press("?")...)
	p := plain(m)
	for _, s := range []string{"17t", "tool calls", "1e", "1a", "11%", "context window used", "~$0.30", "⇣follow", "live", "need you", "gates: dry run", "gone", "last 30 min"} {
		if !strings.Contains(p, s) {
			t.Errorf("help lacks %q", s)
		}
	}
}
