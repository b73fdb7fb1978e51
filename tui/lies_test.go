package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
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

// TestFirstFrameClaimsNothingUnread: the first frame is drawn before any
// file is read (firstframe.go), so it must not say "0 sessions", "No
// sessions yet", "0 projects" or "not watching": it says it is reading.
// Once the reads are in, the counts are back.
func TestFirstFrameClaimsNothingUnread(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	opt := f.options()
	opt.NoWatch = false
	m := New(context.Background(), opt)
	m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 20})
	first := plain(m)
	for _, lie := range []string{"0 sessions", "No sessions yet", "not watching"} {
		if strings.Contains(first, lie) {
			t.Errorf("the unread first frame says %q:\n%s", lie, first)
		}
	}
	for _, want := range []string{"reading…", "Reading the sessions…"} {
		if !strings.Contains(first, want) {
			t.Errorf("the unread first frame does not say %q:\n%s", want, first)
		}
	}
	read := start(t, f, 120, 20)
	if p := plain(read); !strings.Contains(p, "3 sessions") || strings.Contains(p, "reading…") {
		t.Errorf("once read, the header should count the sessions:\n%s", p)
	}

	opts, _ := allFixture(t)
	am := newAllModel(opts, &projCache{})
	am, _ = driveAll(t, am, tea.WindowSizeMsg{Width: 100, Height: 12})
	if p := allFrame(t, am); strings.Contains(p, "0 projects") || !strings.Contains(p, "reading…") {
		t.Errorf("--all's unread first frame:\n%s", p)
	}
}
