package focus

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/dylan-gluck/spcstr/state"
)

// A recorded terminal is data, not trust: state.json is a file in the
// project, which anything (a commit, another program) may have written.
// Before any terminal is asked anything, its recorded ids must have the
// terminal's own strict form, and a socket it would dial must be the
// user's own (docs/security.md).

var (
	tmuxPane   = regexp.MustCompile(`^%[0-9]{1,9}$`)
	numberID   = regexp.MustCompile(`^[0-9]{1,9}$`)
	zellijID   = regexp.MustCompile(`^(?:terminal_|plugin_)?[0-9]{1,9}$`)
	zellijName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$`)
	itermID    = regexp.MustCompile(`^w[0-9]{1,4}t[0-9]{1,4}p[0-9]{1,4}:[0-9A-Fa-f-]{1,64}$`)
)

// names are the terminals spcstr drives, as a person names them.
var names = map[string]string{"tmux": "tmux", "zellij": "zellij", "kitty": "kitty", "wezterm": "WezTerm", "iterm2": "iTerm2"}

// Check reports whether t may be driven by a caller whose environment is
// getenv: nil, or an error (wrapping ErrUnknown) saying which recorded
// value is refused and why.
func Check(t state.Terminal, getenv func(string) string) error {
	bad := func(what, v, want string) error {
		return fmt.Errorf("%w: the recorded %s %q is not %s; spcstr does not act on it", ErrUnknown, what, v, want)
	}
	if names[t.Kind] != "" && (t.Pane == "" || (t.Kind == "zellij" && t.Session == "")) {
		return fmt.Errorf("%w: %s did not give the session its pane", ErrUnknown, names[t.Kind])
	}
	switch t.Kind {
	case "tmux":
		if !tmuxPane.MatchString(t.Pane) {
			return bad("tmux pane", t.Pane, "a tmux pane id (%N)")
		}
		return checkTmuxSocket(t.Socket, getenv)
	case "zellij":
		if !zellijName.MatchString(t.Session) {
			return bad("zellij session", t.Session, "a zellij session name")
		}
		if !zellijID.MatchString(t.Pane) {
			return bad("zellij pane", t.Pane, "a zellij pane id")
		}
	case "kitty":
		if !numberID.MatchString(t.Pane) {
			return bad("kitty window", t.Pane, "a kitty window id")
		}
		return checkKittySocket(t.Socket, getenv)
	case "wezterm":
		if !numberID.MatchString(t.Pane) {
			return bad("WezTerm pane", t.Pane, "a WezTerm pane id")
		}
	case "iterm2":
		if !itermID.MatchString(t.Pane) {
			return bad("iTerm2 session", t.Pane, "an iTerm2 session id (wNtNpN:UUID)")
		}
	}
	return nil
}

// checkTmuxSocket: "" (tmux's default socket for this user), the socket of
// the tmux server the caller itself runs in ($TMUX), or a socket owned by
// the user in tmux's own socket directory, ${TMUX_TMPDIR:-/tmp}/tmux-UID,
// which must be a real directory of the user's that no one else can
// enter; neither may be a symlink.
func checkTmuxSocket(sock string, getenv func(string) string) error {
	if sock == "" {
		return nil
	}
	if mine, _, _ := strings.Cut(getenv("TMUX"), ","); mine != "" && sock == mine {
		return nil
	}
	refuse := func(why string) error {
		return fmt.Errorf("%w: the recorded tmux socket %q %s; spcstr dials only your own tmux sockets (in %s, or the server this runs in)", ErrUnknown, sock, why, tmuxSocketDir(getenv))
	}
	if !filepath.IsAbs(sock) || filepath.Clean(sock) != sock {
		return refuse("is not a clean absolute path")
	}
	dir := filepath.Dir(sock)
	ok := false
	for _, d := range tmuxSocketDirs(getenv) {
		ok = ok || dir == d
	}
	if !ok {
		return refuse("is not in tmux's socket directory")
	}
	if why := ownedPrivateDir(dir); why != "" {
		return refuse("is in a directory that " + why)
	}
	if why := ownedSocket(sock); why != "" {
		return refuse(why)
	}
	return nil
}

// tmuxSocketDir is where tmux keeps this user's sockets.
func tmuxSocketDir(getenv func(string) string) string {
	base := getenv("TMUX_TMPDIR")
	if base == "" {
		base = "/tmp"
	}
	return filepath.Join(base, fmt.Sprintf("tmux-%d", uid()))
}

// tmuxSocketDirs is tmuxSocketDir as written and with its base's symlinks
// resolved (tmux records the resolved path: /private/tmp on macOS).
func tmuxSocketDirs(getenv func(string) string) []string {
	d := tmuxSocketDir(getenv)
	out := []string{d}
	if base, err := filepath.EvalSymlinks(filepath.Dir(d)); err == nil {
		out = append(out, filepath.Join(base, filepath.Base(d)))
	}
	return out
}

// checkKittySocket: "" (kitty's own terminal channel), the caller's own
// $KITTY_LISTEN_ON, or "unix:PATH" of a socket the user owns whose
// directory no one else can write without the sticky bit. Abstract
// sockets (unix:@name) and TCP are anyone's: refused unless the caller's own.
func checkKittySocket(sock string, getenv func(string) string) error {
	if sock == "" || sock == getenv("KITTY_LISTEN_ON") {
		return nil
	}
	refuse := func(why string) error {
		return fmt.Errorf("%w: the recorded kitty socket %q %s; spcstr dials only your own kitty sockets", ErrUnknown, sock, why)
	}
	path, ok := strings.CutPrefix(sock, "unix:")
	if !ok || !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return refuse("is not unix: and a clean absolute path")
	}
	if why := sharedDir(filepath.Dir(path)); why != "" {
		return refuse("is in a directory that " + why)
	}
	if why := ownedSocket(path); why != "" {
		return refuse(why)
	}
	return nil
}
