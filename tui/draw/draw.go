// Package draw holds the drawing helpers more than one pane uses, so that
// no pane imports another: a status's symbol, label and style, the context
// gauge's style, event lines, clock times, and fitting a pane's lines to its
// size. Text reaching it is already safe to print (package store sanitises
// it as it is read).
package draw

import (
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

// Symbol returns the symbol and label of a display status (store.Status*).
func Symbol(status string) (string, string) {
	switch status {
	case store.StatusWorking:
		return "●", status
	case store.StatusIdle:
		return "◌", status
	case store.StatusPermission:
		return "!", status
	case store.StatusQuestion:
		return "?", status
	case store.StatusFailed:
		return "✗", status
	case store.StatusEnded:
		return "○", status
	case store.StatusGone:
		return "⊘", status
	}
	return "·", store.StatusUnknown
}

// EndReason says in words why a session ended, from the reason Claude
// Code gave its SessionEnd hook (an unknown reason is shown as given).
func EndReason(reason string) string {
	switch reason {
	case "clear":
		return "cleared with /clear"
	case "logout":
		return "the user logged out"
	case "prompt_input_exit":
		return "the user exited at the prompt"
	case "bypass_permissions_disabled":
		return "bypass-permissions mode was turned off"
	case "resume":
		return "left to resume another session"
	case "other", "":
		return "exited (Claude Code gave no specific reason)"
	}
	return reason
}

// StatusStyle returns the style of a display status.
func StatusStyle(st *theme.Styles, status string) func(...string) string {
	switch status {
	case store.StatusWorking:
		return st.Working.Render
	case store.StatusIdle:
		return st.Waiting.Render
	case store.StatusPermission, store.StatusQuestion:
		return st.NeedsInput.Render
	case store.StatusFailed:
		return st.Error.Render
	case store.StatusEnded:
		return st.Ended.Render
	case store.StatusGone:
		return st.Stale.Render
	}
	return st.Faint.Render
}

// CtxStyle returns the gauge style for a context percentage.
func CtxStyle(st *theme.Styles, pct float64) func(...string) string {
	switch {
	case pct >= 85:
		return st.GaugeHigh.Render
	case pct >= 60:
		return st.GaugeMid.Render
	}
	return st.Subtle.Render
}

// EventLines draws events one per line: time, event, tool, detail. With
// showSession the short session id leads each line.
func EventLines(st *theme.Styles, evs []store.Event, w int, showSession bool) []string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		line := st.Subtle.Render(Clock(e.At)) + " "
		if showSession {
			line += st.Faint.Render(text.ShortID(e.Session)) + " "
		}
		name := e.Event
		if e.Failed {
			name = st.Error.Render(name)
		} else {
			name = st.Info.Render(name)
		}
		line += name
		if e.Tool != "" {
			line += " " + st.Bold.Render(e.Tool)
		}
		if e.Agent != "" {
			line += " " + st.Faint.Render("("+e.Agent+")")
		}
		if e.Detail != "" {
			line += " " + e.Detail
		}
		out = append(out, text.Fit(line, w))
	}
	return out
}

// Clock formats t as a local time of day ("--:--:--" when zero).
func Clock(t time.Time) string {
	if t.IsZero() {
		return "--:--:--"
	}
	return t.Local().Format("15:04:05")
}

// Window returns the h lines of lines from offset (clamped so that the
// last page is full), padded with blank lines of width w, joined.
func Window(lines []string, offset, w, h int) string {
	off := min(max(offset, 0), max(len(lines)-h, 0))
	lines = lines[off:]
	if len(lines) > h {
		lines = lines[:h]
	}
	out := make([]string, 0, h)
	out = append(out, lines...)
	for len(out) < h {
		out = append(out, strings.Repeat(" ", w))
	}
	return strings.Join(out, "\n")
}
