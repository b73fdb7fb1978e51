// Package focus brings a session's terminal pane to the front, and tells
// whether it is there, through the terminal's own command-line interface:
// tmux, zellij, kitty (kitten @), WezTerm (wezterm cli) and, on macOS,
// iTerm2 (osascript). The pane is the one the recorder noted at the
// session's start (state.Terminal, docs/state.md). Every command runs with
// a deadline; when a terminal cannot be driven the error says why in
// words a person can act on.
package focus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/state"
)

// timeout bounds each command a focus runs.
const timeout = 5 * time.Second

// ErrUnknown reports a session whose terminal was not recorded, or is one
// spcstr cannot drive.
var ErrUnknown = errors.New("cannot focus this terminal")

// Options are the caller's side of a focus.
type Options struct {
	// Getenv is the caller's environment (nil: os.Getenv): a caller
	// inside tmux switches its own client to the pane's session.
	Getenv func(string) string
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
	switch t.Kind {
	case "tmux":
		return focusTmux(ctx, t, opt)
	case "zellij":
		if t.Session == "" || t.Pane == "" {
			return "", fmt.Errorf("%w: zellij did not give the session its pane id", ErrUnknown)
		}
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
		return focusITerm(ctx, t)
	}
	if t.Program != "" {
		return "", fmt.Errorf("%w: the session runs in %s, which spcstr cannot drive (tmux, zellij, kitty, WezTerm and iTerm2 can be)", ErrUnknown, t.Program)
	}
	return "", fmt.Errorf("%w: the session's terminal was not recorded (it started before spcstr recorded terminals, or outside any known terminal)", ErrUnknown)
}

// Active reports whether t's pane is the one in front: for tmux, its
// window and pane are the current ones of an attached session. Other
// terminals are asked when their interface says (zellij, kitty, WezTerm);
// an unknown terminal is never in front.
func Active(ctx context.Context, t state.Terminal) bool {
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
	if t.Pane == "" {
		return "", fmt.Errorf("%w: tmux did not give the session its pane", ErrUnknown)
	}
	sess, win, err := tmuxWhere(ctx, t)
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
func tmuxWhere(ctx context.Context, t state.Terminal) (sess, win string, err error) {
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

func focusITerm(ctx context.Context, t state.Terminal) (string, error) {
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

// run runs name with args under the timeout and returns its output; an
// error carries what the command printed on stderr.
func run(ctx context.Context, name string, args ...string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s is not installed here (not on PATH): %w", name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 200 {
			msg = msg[:200]
		}
		if msg != "" {
			return "", fmt.Errorf("%s %s: %s: %w", name, strings.Join(args[:min(len(args), 3)], " "), msg, err)
		}
		return "", fmt.Errorf("%s %s: %w", name, strings.Join(args[:min(len(args), 3)], " "), err)
	}
	return stdout.String(), nil
}
