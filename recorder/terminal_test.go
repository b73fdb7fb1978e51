package recorder

import (
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/state"
)

func TestTerminalFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want state.Terminal
	}{
		{"tmux inside kitty", map[string]string{"TMUX": "/tmp/tmux-1000/default,4242,0", "TMUX_PANE": "%7", "KITTY_WINDOW_ID": "3", "TERM_PROGRAM": "tmux"},
			state.Terminal{Kind: "tmux", Socket: "/tmp/tmux-1000/default", Pane: "%7", Program: "tmux"}},
		{"zellij", map[string]string{"ZELLIJ_SESSION_NAME": "work", "ZELLIJ_PANE_ID": "2"},
			state.Terminal{Kind: "zellij", Session: "work", Pane: "2"}},
		{"kitty", map[string]string{"KITTY_WINDOW_ID": "5", "KITTY_LISTEN_ON": "unix:/tmp/kitty-1"},
			state.Terminal{Kind: "kitty", Pane: "5", Socket: "unix:/tmp/kitty-1"}},
		{"wezterm", map[string]string{"WEZTERM_PANE": "12", "TERM_PROGRAM": "WezTerm"},
			state.Terminal{Kind: "wezterm", Pane: "12", Program: "WezTerm"}},
		{"iterm2", map[string]string{"ITERM_SESSION_ID": "w0t1p0:ABC", "TERM_PROGRAM": "iTerm.app"},
			state.Terminal{Kind: "iterm2", Pane: "w0t1p0:ABC", Program: "iTerm.app"}},
		{"another terminal", map[string]string{"TERM_PROGRAM": "Apple_Terminal"}, state.Terminal{Program: "Apple_Terminal"}},
		{"nothing", map[string]string{}, state.Terminal{}},
		{"TMUX without a pane", map[string]string{"TMUX": "/tmp/s,1,0"}, state.Terminal{}},
		{"not an identifier", map[string]string{"WEZTERM_PANE": "1\n2", "TERM_PROGRAM": strings.Repeat("x", 300)}, state.Terminal{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := terminalFromEnv(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// The terminal is recorded at SessionStart (a resume elsewhere replaces
// it), not by other events.
func TestSessionStartRecordsTerminal(t *testing.T) {
	p := newProject(t)
	p.env["TMUX"], p.env["TMUX_PANE"] = "/tmp/tmux-1000/default,1,0", "%1"
	p.runAll(`{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`)
	if got := p.state("s1").Terminal; got.Kind != "tmux" || got.Pane != "%1" || got.Socket != "/tmp/tmux-1000/default" {
		t.Fatalf("after SessionStart: %+v", got)
	}
	p.env["TMUX_PANE"] = "%9" // a tool call's environment is not read
	p.runAll(`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	if got := p.state("s1").Terminal.Pane; got != "%1" {
		t.Fatalf("after PreToolUse: pane %q, want %%1", got)
	}
	p.runAll(`{"session_id":"s1","hook_event_name":"SessionStart","source":"resume"}`)
	if got := p.state("s1").Terminal.Pane; got != "%9" {
		t.Fatalf("after a resume: pane %q, want %%9", got)
	}
}
