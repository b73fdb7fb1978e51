package tui

import (
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"github.com/dylan-gluck/spcstr/tui/pane"
)

// TestEveryPaneScrollsAndListsItsKeys checks the pane contract: every pane
// scrolls with the same six keys, and the help overlay lists each pane's
// keys (the loop pane's were once missing).
func TestEveryPaneScrollsAndListsItsKeys(t *testing.T) {
	f := newFixture(t)
	m := start(t, f, 120, 40)
	groups := m.helpGroups()
	for p := range paneCount {
		c := m.pane(p)
		sc, ok := c.(pane.Scroller)
		if !ok {
			t.Errorf("%s pane does not scroll", paneNames[p])
			continue
		}
		var keys []string
		for _, b := range sc.ScrollKeys().Bindings() {
			keys = append(keys, b.Keys()...)
		}
		for _, k := range []string{"up", "down", "pgup", "pgdown", "g", "G"} {
			if !slices.Contains(keys, k) {
				t.Errorf("%s pane: %q does not scroll (keys %v)", paneNames[p], k, keys)
			}
		}
		var listed []key.Binding
		for _, g := range groups {
			if g.title == helpTitles[p] {
				listed = g.keys
			}
		}
		for _, col := range c.FullHelp() {
			for _, b := range col {
				if !slices.ContainsFunc(listed, func(l key.Binding) bool { return l.Help() == b.Help() }) {
					t.Errorf("%s pane: %q (%s) missing from the help overlay", paneNames[p], b.Help().Key, b.Help().Desc)
				}
			}
		}
	}
	// Every group is somewhere in the overlay (in columns when wide),
	// and scrolling reaches the end of it.
	m = send(t, m, press("?")...)
	m = send(t, m, press(downs(60)...)...)
	if fr := strings.Join(m.helpLines(), "\n"); !strings.Contains(fr, "Feedback loop") {
		t.Fatalf("help overlay has no Feedback loop group:\n%s", fr)
	}
}

// downs is n presses of j.
func downs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "j"
	}
	return out
}
