package timeline

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/dylan-gluck/spcstr/tui/theme"
)

// TestOpenFits: the window opens at the shortest zoom that holds the
// session, following now when the session is recent, else ending just
// after its last event.
func TestOpenFits(t *testing.T) {
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name     string
		from, to time.Time
		span     time.Duration
		follow   bool
	}{
		{"a few minutes, now", now.Add(-3 * time.Minute), now, 5 * time.Minute, true},
		{"25 minutes, now", now.Add(-25 * time.Minute), now.Add(-2 * time.Second), time.Hour, true},
		{"ten minutes, two hours ago", now.Add(-130 * time.Minute), now.Add(-120 * time.Minute), 15 * time.Minute, false},
		{"unknown", time.Time{}, time.Time{}, time.Hour, true},
	} {
		m := New(theme.New(true, true), func() time.Time { return now })
		m.Open("s", c.from, c.to)
		if got := Spans[m.span]; got != c.span || m.follow != c.follow {
			t.Errorf("%s: span %v follow %v, want %v %v", c.name, got, m.follow, c.span, c.follow)
		}
		if !c.follow && (m.Since().After(c.from) || m.windowEnd().Before(c.to)) {
			t.Errorf("%s: window %v–%v does not hold %v–%v", c.name, m.Since(), m.windowEnd(), c.from, c.to)
		}
	}
}

// TestAxisTicksOnRoundTimes: every tick label is a round time for the
// zoom, evenly spaced, and no minute is skipped between two ticks of a
// one-minute axis.
func TestAxisTicksOnRoundTimes(t *testing.T) {
	t.Setenv("TZ", "UTC")
	m := New(theme.New(true, true), time.Now)
	start := time.Date(2026, 1, 15, 11, 55, 27, 0, time.UTC)
	for _, c := range []struct {
		span  time.Duration
		w     int
		every int // minutes between ticks
	}{
		{5 * time.Minute, 60, 1},
		{time.Hour, 120, 5},
		{time.Hour, 60, 10},
		{24 * time.Hour, 120, 120},
	} {
		axis := ansi.Strip(m.axis(start, c.span, c.w))
		var mins []int
		for _, f := range strings.Split(axis, "┬")[1:] {
			hm := strings.TrimRight(f, "─")
			at, err := time.Parse("15:04", hm)
			if err != nil {
				t.Fatalf("span %v: label %q in %q", c.span, hm, axis)
			}
			mins = append(mins, at.Hour()*60+at.Minute())
		}
		if len(mins) < 2 {
			t.Fatalf("span %v width %d: %d ticks in %q", c.span, c.w, len(mins), axis)
		}
		for i, mn := range mins {
			if mn%c.every != 0 {
				t.Errorf("span %v: tick %02d:%02d is not on a round time (%q)", c.span, mn/60, mn%60, axis)
			}
			if i > 0 && (mn-mins[i-1]+24*60)%(24*60) != c.every {
				t.Errorf("span %v: ticks %d and %d minutes apart, want %d (%q)", c.span, mins[i-1], mn, c.every, axis)
			}
		}
	}
}
