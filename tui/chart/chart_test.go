package chart

import (
	"testing"

	"github.com/dylan-gluck/spcstr/state"
)

func TestSparkline(t *testing.T) {
	act := []state.MinuteCount{{Minute: 100, Count: 1}, {Minute: 102, Count: 8}, {Minute: 103, Count: 4}, {Minute: 50, Count: 99}}
	cases := []struct {
		now   int64
		width int
		want  string
	}{
		{103, 4, "▂ █▅"},
		{104, 4, " █▅ "},
		{103, 2, "█▅"}, // the old peak (minute 50) is out of the window
		{200, 3, "   "},
		{103, 0, ""},
	}
	for _, c := range cases {
		if got := Sparkline(act, c.now, c.width); got != c.want {
			t.Errorf("Sparkline(now %d, width %d) = %q, want %q", c.now, c.width, got, c.want)
		}
	}
	if got := Total(act, 103, 4); got != 13 {
		t.Errorf("Total = %d, want 13", got)
	}
}

func TestGaugeAndBar(t *testing.T) {
	for _, c := range []struct {
		pct        float64
		w          int
		fill, rest int
	}{{0, 10, 0, 10}, {0.1, 10, 1, 9}, {50, 10, 5, 5}, {100, 10, 10, 0}, {150, 4, 4, 0}, {-3, 4, 0, 4}} {
		f, e := Gauge(c.pct, c.w)
		if len([]rune(f)) != c.fill || len([]rune(e)) != c.rest {
			t.Errorf("Gauge(%v, %d) = %d+%d cells, want %d+%d", c.pct, c.w, len([]rune(f)), len([]rune(e)), c.fill, c.rest)
		}
	}
	for _, c := range []struct {
		v, peak, w int
		want       string
	}{{10, 10, 4, "████"}, {5, 10, 4, "██"}, {1, 10, 4, "▍"}, {0, 10, 4, ""}, {3, 0, 4, ""}} {
		if got := Bar(c.v, c.peak, c.w); got != c.want {
			t.Errorf("Bar(%d,%d,%d) = %q, want %q", c.v, c.peak, c.w, got, c.want)
		}
	}
}

// TestSparkWindow: the window is the minutes asked for, whatever the
// width; a narrow one sums minutes per mark.
func TestSparkWindow(t *testing.T) {
	act := []state.MinuteCount{{Minute: 100, Count: 1}, {Minute: 99, Count: 1}, {Minute: 71, Count: 5}, {Minute: 70, Count: 9}}
	tests := []struct {
		width, per int
		runes      int
	}{{60, 1, 30}, {30, 1, 30}, {15, 2, 15}, {7, 5, 6}}
	for _, tt := range tests {
		s, per := SparkWindow(act, 100, 30, tt.width)
		if per != tt.per || len([]rune(s)) != tt.runes {
			t.Errorf("width %d: %q per %d, want %d runes per %d", tt.width, s, per, tt.runes, tt.per)
		}
		// Minute 71 opens the window and is its peak (minute 70, outside
		// it, would be higher).
		if r := []rune(s); r[0] != '█' && tt.per == 1 {
			t.Errorf("width %d: minute 71 drawn as %q", tt.width, r[0])
		}
	}
}
