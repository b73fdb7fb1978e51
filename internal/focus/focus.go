// Package focus brings a session's terminal pane to the front, and tells
// whether it is there, through the terminal's own command-line interface:
// tmux, zellij, kitty (kitten @), WezTerm (wezterm cli) and, on macOS,
// iTerm2 (osascript). The pane is the one the recorder noted at the
// session's start (state.Terminal, docs/state.md). Every command runs with
// a deadline; when a terminal cannot be driven the error says why in
// words a person can act on.
//
// The recorded terminal is data (a file in the project): Check refuses ids
// not of the terminal's own form and sockets that are not the user's own
// before anything runs, and every command runs through internal/boundedcmd
// (a deadline, its process group killed at it, only the environment the
// terminal's interface needs).
package focus

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/boundedcmd"
	"github.com/dylan-gluck/spcstr/state"
)

// ErrUnknown reports a session whose terminal was not recorded, or is one
// spcstr cannot drive.
var ErrUnknown = errors.New("cannot focus this terminal")

// Options are the caller's side of a focus.
type Options struct {
	// Getenv is the caller's environment (nil: os.Getenv): a caller
	// inside tmux switches its own client to the pane's session.
	Getenv func(string) string
	// Timeout bounds each command (0: boundedcmd.DefaultTimeout).
	Timeout time.Duration
}

func (o Options) getenv(k string) string {
	if o.Getenv == nil {
		return os.Getenv(k)
	}
	return o.Getenv(k)
}

// Focus brings t's pane to the front and returns what it did, in a few
// words ("tmux pane %3, window 2 of session work").
func Focus(ctx context.Context, t state.Terminal, opt Options) (string, error) {
	if err := Check(t, opt.getenv); err != nil {
		return "", err
	}
	run := opt.runner(t.Kind)
	switch t.Kind {
	case "tmux":
		return focusTmux(ctx, t, opt)
	case "zellij":
		if _, err := run(ctx, "zellij", "--session", t.Session, "action", "focus-pane-id", zellijPane(t.Pane)); err != nil {
			return "", err
		}
		return "zellij pane " + t.Pane + " of session " + t.Session, nil
	case "kitty":
		args := []string{"@"}
		if t.Socket != "" {
			args = append(args, "--to", t.Socket)
		}
		args = append(args, "focus-window", "--match", "id:"+t.Pane)
		if _, err := run(ctx, "kitten", args...); err != nil {
			return "", fmt.Errorf("%w (kitty needs allow_remote_control and listen_on)", err)
		}
		return "kitty window " + t.Pane, nil
	case "wezterm":
		if _, err := run(ctx, "wezterm", "cli", "activate-pane", "--pane-id", t.Pane); err != nil {
			return "", err
		}
		return "WezTerm pane " + t.Pane, nil
	case "iterm2":
		return focusITerm(ctx, t, run)
	}
	if t.Program != "" {
		return "", fmt.Errorf("%w: the session runs in %s, which spcstr cannot drive (tmux, zellij, kitty, WezTerm and iTerm2 can be)", ErrUnknown, t.Program)
	}
	return "", fmt.Errorf("%w: the session's terminal was not recorded (it started before spcstr recorded terminals, or outside any known terminal)", ErrUnknown)
}

// Active reports whether t's pane is the one in front: for tmux, its
// window and pane are the current ones of an attached session. Other
// terminals are asked when their interface says (zellij, kitty, WezTerm);
// an unknown terminal, or one Check refuses, is never in front.
func Active(ctx context.Context, t state.Terminal, opt Options) bool {
	if Check(t, opt.getenv) != nil {
		return false
	}
	run := opt.runner(t.Kind)
	switch t.Kind {
	case "tmux":
		out, err := run(ctx, "tmux", tmuxArgs(t, "list-panes", "-a", "-F", "#{pane_id} #{window_active}#{pane_active}#{?session_attached,1,0}")...)
		return err == nil && strings.Contains("\n"+out, "\n"+t.Pane+" 111\n")
	case "wezterm":
		out, err := run(ctx, "wezterm", "cli", "list", "--format", "json")
		return err == nil && jsonFocused(out, "pane_id", t.Pane, "is_active")
	case "kitty":
		args := []string{"@"}
		if t.Socket != "" {
			args = append(args, "--to", t.Socket)
		}
		out, err := run(ctx, "kitten", append(args, "ls", "--match", "id:"+t.Pane)...)
		return err == nil && strings.Contains(out, `"is_focused": true`)
	}
	return false
}

func focusTmux(ctx context.Context, t state.Terminal, opt Options) (string, error) {
	run := opt.runner("tmux")
	sess, win, err := tmuxWhere(ctx, t, run)
	if err != nil {
		return "", err
	}
	for _, c := range [][]string{{"select-window", "-t", t.Pane}, {"select-pane", "-t", t.Pane}} {
		if _, err := run(ctx, "tmux", tmuxArgs(t, c...)...); err != nil {
			return "", err
		}
	}
	did := fmt.Sprintf("tmux pane %s, window %s of session %s", t.Pane, win, sess)
	// A caller inside the same tmux server moves its own client there.
	mine, _, _ := strings.Cut(opt.getenv("TMUX"), ",")
	if mine == "" || (t.Socket != "" && mine != t.Socket) {
		return did + " (selected; attach to that session to see it)", nil
	}
	if _, err := run(ctx, "tmux", tmuxArgs(t, "switch-client", "-t", t.Pane)...); err != nil {
		return did + " (selected; no client to switch: " + err.Error() + ")", nil
	}
	return did, nil
}

// tmuxWhere finds the session and window index of t's pane (display-message
// -t does not fail for a pane that is gone: the panes are listed).
func tmuxWhere(ctx context.Context, t state.Terminal, run runFunc) (sess, win string, err error) {
	out, err := run(ctx, "tmux", tmuxArgs(t, "list-panes", "-a", "-F", "#{pane_id}\t#{session_name}\t#{window_index}")...)
	if err != nil {
		return "", "", fmt.Errorf("the tmux server of pane %s is gone: %w", t.Pane, err)
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "\t")
		if len(f) == 3 && f[0] == t.Pane {
			return f[1], f[2], nil
		}
	}
	return "", "", fmt.Errorf("the tmux pane %s is gone (closed since the session started)", t.Pane)
}

func tmuxArgs(t state.Terminal, args ...string) []string {
	if t.Socket != "" {
		return append([]string{"-S", t.Socket}, args...)
	}
	return args
}

// zellijPane is a pane id as zellij's actions take it (ZELLIJ_PANE_ID is
// a terminal pane's bare number).
func zellijPane(id string) string {
	if strings.Contains(id, "_") {
		return id
	}
	return "terminal_" + id
}

func focusITerm(ctx context.Context, t state.Terminal, run runFunc) (string, error) {
	if runtime.GOOS != "darwin" {
		return "", fmt.Errorf("%w: the session runs in iTerm2, which can be driven only on the Mac it runs on", ErrUnknown)
	}
	_, id, ok := strings.Cut(t.Pane, ":") // w0t1p0:UNIQUE-ID
	if !ok || strings.ContainsAny(id, `"\`) {
		return "", fmt.Errorf("%w: iTerm2 session id %q", ErrUnknown, t.Pane)
	}
	script := `tell application "iTerm2"
repeat with w in windows
repeat with t in tabs of w
repeat with s in sessions of t
if unique id of s is "` + id + `" then
select w
tell t to select
tell s to select
activate
return
end if
end repeat
end repeat
end repeat
error "the iTerm2 session is gone"
end tell`
	if _, err := run(ctx, "osascript", "-e", script); err != nil {
		return "", err
	}
	return "iTerm2 session " + id, nil
}

// jsonFocused reports whether the JSON list out has an object whose key
// is id and whose flag is true (a light read of wezterm cli list).
func jsonFocused(out, key, id, flag string) bool {
	for _, obj := range strings.Split(out, "}") {
		if strings.Contains(obj, `"`+key+`": `+id+",") || strings.Contains(obj, `"`+key+`":`+id+",") {
			return strings.Contains(obj, `"`+flag+`": true`) || strings.Contains(obj, `"`+flag+`":true`)
		}
	}
	return false
}

// envKeys are the variables each terminal's interface needs beyond
// boundedcmd.BaseKeys: how it finds its server, nothing else.
var envKeys = map[string][]string{
	"tmux":    {"TMUX", "TMUX_PANE", "TMUX_TMPDIR", "TERM"},
	"zellij":  {"ZELLIJ_SOCKET_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"},
	"kitty":   {"KITTY_LISTEN_ON", "KITTY_WINDOW_ID", "KITTY_PUBLIC_KEY", "XDG_CONFIG_HOME", "TERM"},
	"wezterm": {"WEZTERM_UNIX_SOCKET", "WEZTERM_PANE", "XDG_CONFIG_HOME"},
}

// runFunc runs one of a terminal's commands and returns its output.
type runFunc func(ctx context.Context, name string, args ...string) (string, error)

// runner runs the commands of terminal kind under opt's timeout with the
// environment that kind needs.
func (o Options) runner(kind string) runFunc {
	env := boundedcmd.Pick(o.getenv, envKeys[kind]...)
	return func(ctx context.Context, name string, args ...string) (string, error) {
		return boundedcmd.Run(ctx, boundedcmd.Cmd{Name: name, Args: args, Env: env, Timeout: o.Timeout})
	}
}
