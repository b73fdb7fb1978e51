// Package chart draws the dashboard's small pictures as plain text: a
// sparkline of events per minute, a gauge for context use, and bars for
// tool counts. Each returns unstyled runes; callers color them.
package chart

import (
	"strings"

	"github.com/dylan-gluck/spcstr/state"
)

var sparkRunes = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws the last width minutes ending at nowMinute (Unix minutes)
// from per-minute counts, one rune per minute. Minutes without events are
// a space, so quiet stretches read as gaps.
func Sparkline(act []state.MinuteCount, nowMinute int64, width int) string {
	if width <= 0 {
		return ""
	}
	counts := make([]int, width)
	first := nowMinute - int64(width) + 1
	peak := 0
	for _, mc := range act {
		if mc.Minute < first || mc.Minute > nowMinute {
			continue
		}
		i := int(mc.Minute - first)
		counts[i] += mc.Count
		peak = max(peak, counts[i])
	}
	var b strings.Builder
	for _, c := range counts {
		switch {
		case c <= 0:
			b.WriteRune(' ')
		case peak <= 1:
			b.WriteRune(sparkRunes[len(sparkRunes)/2])
		default:
			i := (c*(len(sparkRunes)-1) + peak - 1) / peak
			b.WriteRune(sparkRunes[min(max(i, 0), len(sparkRunes)-1)])
		}
	}
	return b.String()
}

// SparkWindow draws a fixed window of minutes ending at nowMinute in at
// most width runes: when the window is wider than width, each rune sums
// several minutes (the window's length never depends on the pane's width,
// so its label stays true). It returns the runes and the minutes per rune.
func SparkWindow(act []state.MinuteCount, nowMinute int64, minutes, width int) (string, int) {
	if width <= 0 || minutes <= 0 {
		return "", 1
	}
	per := (minutes + width - 1) / width
	cells := (minutes + per - 1) / per
	span := int64(cells * per)
	first := nowMinute - span + 1
	buckets := make([]state.MinuteCount, 0, len(act))
	for _, mc := range act {
		if mc.Minute < first || mc.Minute > nowMinute {
			continue
		}
		buckets = append(buckets, state.MinuteCount{Minute: (mc.Minute - first) / int64(per), Count: mc.Count})
	}
	return Sparkline(buckets, int64(cells-1), cells), per
}

// Total sums the counts within the last n minutes up to nowMinute.
func Total(act []state.MinuteCount, nowMinute int64, n int) int {
	t := 0
	for _, mc := range act {
		if mc.Minute > nowMinute-int64(n) && mc.Minute <= nowMinute {
			t += mc.Count
		}
	}
	return t
}

// Gauge splits width cells into filled and empty parts for pct (0–100).
func Gauge(pct float64, width int) (filled, empty string) {
	if width <= 0 {
		return "", ""
	}
	pct = min(max(pct, 0), 100)
	n := int(pct*float64(width)/100 + 0.5)
	if pct > 0 && n == 0 {
		n = 1
	}
	return strings.Repeat("█", n), strings.Repeat("░", width-n)
}

// Bar draws value against peak in width cells, with eighth-block precision.
func Bar(value, peak, width int) string {
	if width <= 0 || peak <= 0 || value <= 0 {
		return ""
	}
	eighths := value * width * 8 / peak
	if eighths == 0 {
		eighths = 1
	}
	full, part := eighths/8, eighths%8
	s := strings.Repeat("█", full)
	if part > 0 && full < width {
		s += string([]rune("▏▎▍▌▋▊▉")[part-1])
	}
	return s
}
