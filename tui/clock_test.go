package tui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// The clock redraws only when a text that depends on the time changed: an
// idle dashboard of sessions whose ages are in minutes draws nothing for
// most ticks, and a running session's run time redraws every second.
func TestClockTickRedrawsOnlyWhatChanged(t *testing.T) {
	for _, tt := range []struct {
		name        string
		setup       func(*fixture, testing.TB)
		after       time.Duration
		wantRedrawn bool
	}{
		{"stale session, 10 s later", func(f *fixture, t testing.TB) { f.stale(t) }, 10 * time.Second, false},
		{"stale session, the next minute", func(f *fixture, t testing.TB) { f.stale(t) }, time.Minute, true},
		{"running session, 1 s later", func(f *fixture, t testing.TB) { f.populate(t) }, time.Second, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			tt.setup(f, t)
			now := fixedNow
			opt := f.options()
			opt.Now = func() time.Time { return now }
			m := New(context.Background(), opt)
			m.tick = 0
			m = drive(t, m, m.Init())
			m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40}, tickMsg(now))
			before := m.frame()
			gen := m.gen
			now = now.Add(tt.after)
			m = send(t, m, tickMsg(now))
			if redrawn := m.gen != gen; redrawn != tt.wantRedrawn {
				t.Fatalf("redrawn = %v, want %v", redrawn, tt.wantRedrawn)
			}
			// Whether or not it redrew, the frame shown is what a full
			// render draws now: no change was missed.
			if m.frame() != m.Render() {
				t.Fatalf("the frame shown is stale:\n%s\nwant\n%s", m.frame(), m.Render())
			}
			if !tt.wantRedrawn && m.Render() != before {
				t.Fatal("the frame changed without a redraw")
			}
		})
	}
}
