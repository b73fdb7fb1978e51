// Package notify is the dashboard's desktop notifications
// (dashboard.notify, spcstr tui --notify): a Tracker that turns the
// sessions' statuses, as the dashboard sees them change, into at most one
// Notice per session per change (it started waiting for the user; a long
// turn finished), and the ways to deliver one: an escape sequence the
// terminal turns into a notification (OSC 9, OSC 777, kitty's OSC 99,
// wrapped for tmux's passthrough) or a command (notify-send, osascript, or
// the user's own, from the user's own config: docs/security.md), each
// bounded in time with only the environment it needs (internal/boundedcmd).
// Whether the session's pane is in front is the caller's
// check (internal/focus).
package notify

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/boundedcmd"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/text"
)

// DefaultLongTurn is how long a turn must run before its end is news.
const DefaultLongTurn = 2 * time.Minute

// Row is a session as the tracker sees it.
type Row struct {
	ID, Title string
	// Display is the status shown (store.Status*); Asks what it waits for.
	Display, Asks string
}

// Notice is one notification to send.
type Notice struct {
	// Key is the project the session belongs to ("" for the one shown).
	Key, ID string
	Title   string // the notification's title: the session's title
	Body    string // what it waits for
}

type seen struct {
	display string
	since   time.Time // when it was first seen working, this turn
}

// Tracker remembers each session's status between looks.
type Tracker struct {
	// LongTurn is how long a turn must have run for its end to be news
	// (0: DefaultLongTurn; negative: never).
	LongTurn time.Duration
	seen     map[string]seen
}

// Observe looks at rows (of the project key) at now and returns the
// notices of the sessions that changed since the last look: one that
// starts needing input, one whose long turn ended. A session's first
// sighting is never news.
func (t *Tracker) Observe(key string, rows []Row, now time.Time) []Notice {
	if t.seen == nil {
		t.seen = map[string]seen{}
	}
	long := t.LongTurn
	if long == 0 {
		long = DefaultLongTurn
	}
	var out []Notice
	for _, r := range rows {
		k := key + "\x00" + r.ID
		prev, ok := t.seen[k]
		cur := seen{display: r.Display, since: prev.since}
		if r.Display == store.StatusWorking && (prev.display != store.StatusWorking || cur.since.IsZero()) {
			cur.since = now
		}
		title := r.Title
		if title == "" {
			title = "session " + text.ShortID(r.ID)
		}
		if ok && prev.display != r.Display {
			switch {
			case r.Display == store.StatusNeedsInput:
				body := r.Asks
				if body == "" {
					body = "waits for your input"
				}
				out = append(out, Notice{Key: key, ID: r.ID, Title: title, Body: body})
			case prev.display == store.StatusWorking && r.Display == store.StatusWaiting && long > 0 &&
				!prev.since.IsZero() && now.Sub(prev.since) >= long:
				out = append(out, Notice{Key: key, ID: r.ID, Title: title,
					Body: "finished its turn after " + text.Duration(now.Sub(prev.since).Round(time.Second)) + "; waits for your next prompt"})
			}
		}
		if r.Display != store.StatusWorking {
			cur.since = time.Time{}
		}
		t.seen[k] = cur
	}
	return out
}

// Method is how notices are delivered.
type Method struct {
	// Kind is osc9, osc777, osc99 (written to the terminal) or command.
	Kind string
	// Command is the program and its first arguments; the title and the
	// body follow them (Kind command).
	Command []string
}

// Choose picks the delivery: via is dashboard.notify_via ("" or auto,
// terminal, osc9, osc777, osc99, notify-send, osascript, command with
// command). Auto asks the terminal when it is one known to show OSC
// notifications (kitty, iTerm2, WezTerm, Ghostty), else notify-send on
// Linux or osascript on macOS when installed, else OSC 9.
func Choose(via string, command []string, getenv func(string) string) (Method, error) {
	switch via {
	case "osc9", "osc777", "osc99":
		return Method{Kind: via}, nil
	case "terminal":
		return Method{Kind: terminalKind(getenv)}, nil
	case "notify-send":
		return Method{Kind: "command", Command: []string{"notify-send", "--app-name=spcstr"}}, nil
	case "osascript":
		return Method{Kind: "command", Command: []string{"osascript"}}, nil
	case "command":
		if len(command) == 0 {
			return Method{}, fmt.Errorf("dashboard.notify_via is command but dashboard.notify_command is empty")
		}
		return Method{Kind: "command", Command: command}, nil
	case "", "auto":
	default:
		return Method{}, fmt.Errorf("dashboard.notify_via %q: want auto, terminal, osc9, osc777, osc99, notify-send, osascript or command", via)
	}
	if k := terminalKind(getenv); k != "" && knownOSC(getenv) {
		return Method{Kind: k}, nil
	}
	if runtime.GOOS == "darwin" {
		if _, err := exec.LookPath("osascript"); err == nil {
			return Method{Kind: "command", Command: []string{"osascript"}}, nil
		}
	} else if _, err := exec.LookPath("notify-send"); err == nil {
		return Method{Kind: "command", Command: []string{"notify-send", "--app-name=spcstr"}}, nil
	}
	return Method{Kind: terminalKind(getenv)}, nil
}

// terminalKind is the OSC the terminal understands best.
func terminalKind(getenv func(string) string) string {
	if getenv("KITTY_WINDOW_ID") != "" {
		return "osc99"
	}
	return "osc9"
}

// knownOSC reports a terminal known to turn OSC 9 or 99 into a
// notification.
func knownOSC(getenv func(string) string) bool {
	if getenv("KITTY_WINDOW_ID") != "" {
		return true
	}
	switch getenv("TERM_PROGRAM") {
	case "iTerm.app", "WezTerm", "ghostty":
		return true
	}
	return false
}

// clean makes notification text one safe line: no controls, no escapes,
// and no ';' (OSC 777's separator), at most n bytes.
func clean(s string, n int) string {
	s = strings.ReplaceAll(text.Sanitize(s), ";", ",")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

// Sequence is the escape sequence that asks the terminal to show a
// notification (kind osc9, osc777 or osc99); inTmux wraps it in tmux's
// passthrough (which needs allow-passthrough on).
func Sequence(kind, title, body string, inTmux bool) string {
	title, body = clean(title, 120), clean(body, 240)
	var seq string
	switch kind {
	case "osc777":
		seq = "\x1b]777;notify;" + title + ";" + body + "\x1b\\"
	case "osc99":
		seq = "\x1b]99;i=spcstr:d=0;" + title + "\x1b\\" + "\x1b]99;i=spcstr:d=1:p=body;" + body + "\x1b\\"
	default:
		seq = "\x1b]9;" + title + ": " + body + "\x1b\\"
	}
	if inTmux {
		seq = "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return seq
}

// Run delivers a notice through a command (Method.Kind command).
func Run(ctx context.Context, m Method, title, body string) error {
	title, body = clean(title, 120), clean(body, 240)
	args := append([]string(nil), m.Command[1:]...)
	if len(m.Command) == 1 && m.Command[0] == "osascript" {
		q := func(s string) string { return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"` }
		args = append(args, "-e", "display notification "+q(body)+" with title "+q(title))
	} else {
		args = append(args, title, body)
	}
	_, err := boundedcmd.Run(ctx, boundedcmd.Cmd{Name: m.Command[0], Args: args, Env: boundedcmd.Pick(os.Getenv, notifyEnv...)})
	if err != nil {
		return fmt.Errorf("notification through %s: %s", m.Command[0], text.Sanitize(err.Error()))
	}
	return nil
}

// notifyEnv are the variables a notification command gets beyond
// boundedcmd.BaseKeys: how it reaches the desktop, nothing else.
var notifyEnv = []string{"DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE", "TERM", "TERM_PROGRAM"}
