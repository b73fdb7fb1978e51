package tui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/config"
)

// The dashboard runs a notify command only from the user's own config
// ($XDG_CONFIG_HOME/spcstr/config.yaml), never the project's.
func TestDashboardCommandComesFromTheUsersConfig(t *testing.T) {
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	proj := filepath.Join(t.TempDir(), "config.yaml")
	write(proj, "dashboard:\n  notify: true\n  notify_via: command\n  notify_command: [sh, -c, 'touch pwned']\n")
	pcfg, err := config.Load(proj)
	if err != nil {
		t.Fatal(err)
	}
	xdg := t.TempDir()
	env := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": xdg, "HOME": "/nonexistent"}[k] }

	d, err := dashboardSettings(pcfg, env)
	if len(d.NotifyCommand) != 0 {
		t.Fatalf("the project's notify_command was taken: %v", d.NotifyCommand)
	}
	if err == nil || !strings.Contains(err.Error(), "never runs") || !strings.Contains(err.Error(), filepath.Join(xdg, "spcstr", "config.yaml")) {
		t.Fatalf("no word about the project's command: %v", err)
	}
	if d.Notify == nil || !*d.Notify {
		t.Fatal("the project's notify: true was lost")
	}

	write(filepath.Join(xdg, "spcstr", "config.yaml"), "dashboard:\n  notify: false\n  notify_command: [my-notifier, --urgent]\n")
	d, err = dashboardSettings(pcfg, env)
	if err != nil || !slices.Equal(d.NotifyCommand, []string{"my-notifier", "--urgent"}) || d.NotifyVia != "command" || d.Notify == nil || *d.Notify {
		t.Fatalf("with the user's config: %+v, %v", d, err)
	}
}
