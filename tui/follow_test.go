package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/watch"
)

// Follow goes to the session that needs you (the oldest wait first), to
// the newest only when nobody waits; it pauses while a session is open; w
// steps through the sessions that need you (issue 31).
func TestFollowGoesWhereYouAreNeeded(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	m := start(t, f, 120, 40)
	if m.selected != idBusy {
		t.Fatalf("nobody waits: selected %s, want the newest %s", m.selected, idBusy)
	}
	if m = send(t, m, press("w")...); !strings.Contains(m.status, "no session needs you") {
		t.Errorf("w with nobody waiting: status %q", m.status)
	}
	if !m.follow {
		t.Fatal("w with nobody waiting turned follow off")
	}

	// Two sessions start waiting: the older wait is chosen, not the newer
	// session.
	wait := func(id string, since time.Duration, tool string) {
		s := askingSession(f.layout.Root)
		s.SessionID, s.CreatedAt = id, ago(since)
		s.Wait, s.Asked, s.WaitSince = state.WaitPermission, "Bash `"+tool+"`", ago(since)
		f.writeState(t, s)
		f.register(t, id, alivePID)
	}
	const older, newer = "7b2c3d4e-0000-4000-8000-000000000007", "8b2c3d4e-0000-4000-8000-000000000008"
	wait(newer, 10*time.Second, "make deploy")
	wait(older, 40*time.Second, "npm publish")
	m = send(t, m, changeMsg{c: watch.Change{Rescan: true, Registry: true, Sessions: map[string]bool{older: true, newer: true}}})
	if m.selected != older {
		t.Fatalf("follow selected %s, want the oldest wait %s:\n%s", m.selected, older, plain(m))
	}
	if p := plain(m); !strings.Contains(p, "2 need you") || !strings.Contains(p, "npm publish") {
		t.Errorf("header or row:\n%s", p)
	}
	// w steps to the next one that needs you, and round again.
	m = send(t, m, press("w")...)
	if m.selected != newer || m.follow {
		t.Fatalf("w: selected %s follow %v, want %s and follow paused", m.selected, m.follow, newer)
	}
	m = send(t, m, press("w")...)
	if m.selected != older {
		t.Fatalf("w again: selected %s, want %s", m.selected, older)
	}

	// Open a session: follow does not swap it, even when another needs you.
	m = send(t, m, press("f")...)
	m = send(t, m, press("down")...)
	m = send(t, m, press("f")...)
	m = send(t, m, press("enter")...)
	if m.focus != PaneDetail {
		t.Fatalf("enter: focus %v", m.focus)
	}
	reading := m.selected
	const third = "6b2c3d4e-0000-4000-8000-000000000066"
	wait(third, time.Hour, "rm -rf build")
	m = send(t, m, changeMsg{c: watch.Change{Rescan: true, Registry: true, Sessions: map[string]bool{third: true}}})
	if m.selected != reading {
		t.Fatalf("follow swapped the open session %s for %s", reading, m.selected)
	}
	// Back on the list, follow goes on: to the oldest wait.
	m = send(t, m, press("esc")...)
	m = send(t, m, changeMsg{c: watch.Change{Sessions: map[string]bool{third: true}}})
	if m.selected != third {
		t.Fatalf("back on the list: selected %s, want %s", m.selected, third)
	}
}
