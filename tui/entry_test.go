package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
)

// longReason is longer than a 40-column pane many times over, and holds a
// terminal escape that must not reach the screen.
var longReason = "unsatisfied: commit_plan — write the plan first (" + strings.Repeat("step ", 40) + ")\x1b]0;pwned\x07 the end-of-reason-marker"

// TestOpenDecisionInFull: enter on a decision shows its whole reason
// wrapped at 40 columns, its gate, that it was not enforced (dry run) and
// the entry's JSON, sanitised; esc closes it.
func TestOpenDecisionInFull(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	f.decide(t, gate.Record{SessionID: idBusy, Timestamp: ago(time.Second / 2), Source: "requirements:commit_plan",
		Hook: "PreToolUse", Decision: "deny", Reason: longReason, DryRun: true})
	m := start(t, f, 40, 30)
	m = send(t, m, press("3", "d", "enter")...)
	if !m.showEntry {
		t.Fatalf("enter did not open the decision:\n%s", plain(m))
	}
	var all strings.Builder
	for i := 0; i < 40; i++ { // page through the whole view
		all.WriteString(plain(m))
		m = send(t, m, press("j")...)
	}
	got := all.String()
	flat := strings.Join(strings.Fields(got), " ")
	for _, want := range []string{"requirements:commit_plan", "not enforced: dry run", "end-of-reason-marker", `"hook": "PreToolUse"`} {
		if !strings.Contains(flat, want) {
			t.Errorf("the view lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\x1b]") || strings.Contains(got, "\x07") {
		t.Error("an escape sequence from the log reached the screen")
	}
	if strings.Contains(flat, "…") && !strings.Contains(flat, "reading") {
		t.Errorf("text cut with …:\n%s", got)
	}
	fr := frame(t, m)
	checkSize(t, "entry-40", fr, 40, 30)
	m = send(t, m, press("esc")...)
	if m.showEntry || m.focus != PaneEvents {
		t.Fatalf("esc: entry %v focus %v; want closed, events", m.showEntry, m.focus)
	}
}

func TestEntryGolden(t *testing.T) {
	for _, w := range []int{40, 120} {
		name := "entry-" + itoa(w)
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.populate(t)
			f.decisions(t)
			m := start(t, f, w, 30)
			m = send(t, m, press("3", "d", "k", "enter")...)
			fr := frame(t, m)
			checkSize(t, name, fr, w, 30)
			golden(t, name, fr)
		})
	}
}
