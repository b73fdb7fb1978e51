package tui

import (
	"strings"
	"testing"
)

// TestTimeline: t shows one lane per session, the selected one first,
// labelled by title, with a mark for the deny and the dry-run block and a
// bar for the agent; at 40 columns the selected session alone; enter opens
// the mark under the cursor and esc comes back.
func TestTimeline(t *testing.T) {
	for _, w := range []int{40, 120} {
		name := "timeline-" + itoa(w)
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.populate(t)
			f.decisions(t)
			m := start(t, f, w, 30)
			m = send(t, m, press("t")...)
			if !m.showTimeline {
				t.Fatal("t did not open the timeline")
			}
			if w < 60 {
				// A cell is 1.5 min: zoom in to the last 5 minutes to
				// tell the decisions apart.
				m = send(t, m, press("+", "+")...)
			}
			p := plain(m)
			for _, want := range []string{"Timeline · last", "Add a /healthz endpoint", "✗", "◇"} {
				if !strings.Contains(p, want) {
					t.Errorf("timeline lacks %q:\n%s", want, p)
				}
			}
			if w >= 60 && !strings.Contains(p, "━") {
				t.Errorf("no bar for the agent:\n%s", p)
			}
			if other := strings.Contains(p, "Parser survey"); other != (w >= 60) {
				t.Errorf("width %d: second lane shown %v:\n%s", w, other, p)
			}
			fr := frame(t, m)
			checkSize(t, name, fr, w, 30)
			golden(t, name, fr)
			// The newest mark is under the cursor: enter opens it.
			m = send(t, m, press("enter")...)
			if !m.showEntry {
				t.Fatalf("enter did not open the mark:\n%s", plain(m))
			}
			m = send(t, m, press("esc")...)
			if m.showEntry || !m.showTimeline {
				t.Fatal("esc did not come back to the timeline")
			}
			m = send(t, m, press("esc")...)
			if m.showTimeline {
				t.Fatal("esc did not close the timeline")
			}
		})
	}
}
