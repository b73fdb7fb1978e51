package tui

import (
	"strings"
	"testing"
)

// TestSortOrderStaysInSight: a sort order other than the default is shown
// under the list after its message has gone.
func TestSortOrderStaysInSight(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	m := start(t, f, 120, 30)
	m = send(t, m, press("s", "s")...)
	m.status = "" // the passing message has faded
	if p := plain(m); !strings.Contains(p, "sorted: cost first") {
		t.Fatalf("the order is not shown:\n%s", p)
	}
	m = send(t, m, press("s")...)
	m.status = ""
	if p := plain(m); strings.Contains(p, "sorted:") {
		t.Fatalf("the default order needs no line:\n%s", p)
	}
}

// TestFocusedPaneWithoutColour: with NO_COLOR (the fixture's) the focused
// pane's tab is told apart by more than a background: it is in brackets,
// in the wide and the narrow layout.
func TestFocusedPaneWithoutColour(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	for _, w := range []int{60, 120} {
		m := start(t, f, w, 30)
		if p := plain(m); !strings.Contains(p, "[Sessions]") {
			t.Errorf("width %d: the focused list is not marked:\n%s", w, p)
		}
		m = send(t, m, press("4")...)
		p := plain(m)
		if !strings.Contains(p, "[Reqs]") || strings.Contains(p, "[Sessions]") {
			t.Errorf("width %d: after 4 the Reqs tab is not the one marked:\n%s", w, p)
		}
	}
}
