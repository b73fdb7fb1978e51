// Package text holds the dashboard's small formatting helpers: durations,
// ages, token counts, width-aware padding and truncation of styled text,
// and Sanitize, the one function that makes untrusted text safe to print.
package text

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/dylan-gluck/spcstr/internal/termtext"
)

// Duration formats d compactly: 850ms, 12s, 3m05s, 2h04m, 3d04h.
func Duration(d time.Duration) string {
	switch {
	case d < 0:
		d = 0
		fallthrough
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
	}
}

// Age formats how long ago t was: "now", "12s", "3m", "2h", "5d".
func Age(now, t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	d := now.Sub(t)
	switch {
	case d < time.Second:
		return "now"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours())/24)
	}
}

// Count formats a number compactly: 950, 12.3k, 1.2M.
func Count(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
	}
}

// Plural writes a count with its noun: "1 session", "3 sessions" (the
// plural adds "s").
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// ShortID is the first 8 characters of a session id.
func ShortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// Width is the display width of s (styles ignored).
func Width(s string) int { return ansi.StringWidth(s) }

// Trunc cuts styled s to at most w cells, ending with "…" when cut.
func Trunc(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// Fit truncates or pads styled s to exactly w cells.
func Fit(s string, w int) string {
	s = Trunc(s, w)
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// Right places left and right on one line of width w, right-aligned right;
// left is truncated to make room.
func Right(left, right string, w int) string {
	rw := ansi.StringWidth(right)
	if rw >= w {
		return Trunc(right, w)
	}
	return Fit(left, w-rw) + right
}

// Wrap word-wraps plain text to w cells, breaking long words.
func Wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	return strings.Split(ansi.Wrap(s, w, ""), "\n")
}

// Sanitize makes untrusted text safe to print: it removes escape sequences
// (CSI, OSC, DCS, ..., in their 7-bit and C1 forms) and C0/C1 control
// characters, and flattens newlines, tabs and carriage returns to spaces. A
// log, prompt or file name may hold escapes that would corrupt the screen or
// retitle the terminal. It is internal/termtext's sanitiser (the one every
// other output uses), on one line. The dashboard calls it once, where such
// text is read (package store), never at draw time.
func Sanitize(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	return termtext.Line(strings.ReplaceAll(s, "\r", " "))
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }
