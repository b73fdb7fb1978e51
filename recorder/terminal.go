package recorder

import (
	"strings"

	"github.com/dylan-gluck/spcstr/state"
)

// maxTerminalField bounds each identifier kept of the environment.
const maxTerminalField = 256

// terminalFromEnv reads where the session runs from its hook's environment
// (which is Claude Code's): the innermost multiplexer first (tmux, then
// zellij), then the terminals that can be driven (kitty, WezTerm, iTerm2),
// else only TERM_PROGRAM. It keeps only the identifiers that find the pane
// (docs/state.md).
func terminalFromEnv(getenv func(string) string) state.Terminal {
	get := func(k string) string {
		v := getenv(k)
		if len(v) > maxTerminalField || strings.ContainsAny(v, "\x00\n\r") {
			return "" // not an identifier
		}
		return v
	}
	t := state.Terminal{Program: get("TERM_PROGRAM")}
	switch {
	case get("TMUX") != "" && get("TMUX_PANE") != "":
		sock, _, _ := strings.Cut(get("TMUX"), ",") // socket,pid,session
		t.Kind, t.Socket, t.Pane = "tmux", sock, get("TMUX_PANE")
	case get("ZELLIJ_SESSION_NAME") != "":
		t.Kind, t.Session, t.Pane = "zellij", get("ZELLIJ_SESSION_NAME"), get("ZELLIJ_PANE_ID")
	case get("KITTY_WINDOW_ID") != "":
		t.Kind, t.Pane, t.Socket = "kitty", get("KITTY_WINDOW_ID"), get("KITTY_LISTEN_ON")
	case get("WEZTERM_PANE") != "":
		t.Kind, t.Pane = "wezterm", get("WEZTERM_PANE")
	case get("ITERM_SESSION_ID") != "":
		t.Kind, t.Pane = "iterm2", get("ITERM_SESSION_ID")
	}
	return t
}
