package doctor

import (
	"context"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/config"
)

// checkNotify: the dashboard's notifications, when they would go through
// tmux as an escape sequence (OSC 9, 777 or 99 wrapped for passthrough),
// reach the terminal only with tmux's allow-passthrough on.
func checkNotify(ctx context.Context, env *Env) []Finding {
	if env.Getenv("TMUX") == "" {
		return nil // not inside tmux: nothing to pass through
	}
	cfg, err := config.Load(env.ConfigPath())
	if err != nil {
		return nil // the config check says so
	}
	var dash struct {
		Notify    bool   `yaml:"notify"`
		NotifyVia string `yaml:"notify_via"`
	}
	_ = cfg.Section("dashboard", &dash) // a bad section: the dashboard says so
	if !viaTerminal(dash.NotifyVia, env) {
		return nil
	}
	get := env.TmuxOption
	if get == nil {
		get = tmuxOption
	}
	v, err := get(ctx, "allow-passthrough")
	if err != nil {
		return []Finding{{Severity: Info, Message: "inside tmux, and tmux's allow-passthrough could not be read: " + err.Error()}}
	}
	if v == "on" || v == "all" {
		return []Finding{{Severity: OK, Message: "notifications pass through tmux (allow-passthrough " + v + ")"}}
	}
	sev, when := Info, "with spcstr tui --notify, notifications"
	if dash.Notify {
		sev, when = Warning, "dashboard.notify is on, but notifications"
	}
	return []Finding{{Severity: sev,
		Message: when + " go to the terminal through tmux, whose allow-passthrough is " + "off: they will not show",
		Fix:     "tmux set -g allow-passthrough on (and add set -g allow-passthrough on to ~/.tmux.conf), or set dashboard.notify_via: notify-send"}}
}

// viaTerminal reports whether notify_via (as the dashboard reads it,
// tui/notify.Choose) sends notifications as escape sequences to the
// terminal rather than through a program.
func viaTerminal(via string, env *Env) bool {
	switch via {
	case "osc9", "osc777", "osc99", "terminal":
		return true
	case "", "auto":
	default:
		return false
	}
	if env.Getenv("KITTY_WINDOW_ID") != "" {
		return true
	}
	prog := "notify-send"
	if runtime.GOOS == "darwin" {
		prog = "osascript"
	}
	_, err := env.LookPath(prog)
	return err != nil
}

// tmuxOption reads a global tmux option with the user's own tmux.
func tmuxOption(ctx context.Context, name string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", "show-options", "-gv", name).Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
