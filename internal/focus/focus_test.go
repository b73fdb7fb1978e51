package focus

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/state"
)

// fakeBin puts a program name on PATH that appends its arguments to a
// file and exits with code (written to a temp name, then renamed: never
// run while being written). It returns the file.
func fakeBin(t *testing.T, dir, name string, code int) string {
	t.Helper()
	log := filepath.Join(dir, name+".args")
	script := "#!/bin/sh\necho \"$*\" >> '" + log + "'\nexit " + string(rune('0'+code)) + "\n"
	tmp := filepath.Join(dir, "."+name+".tmp")
	if err := os.WriteFile(tmp, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	return log
}

func asked(t *testing.T, log string) string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("the fake was not run: %v", err)
	}
	return strings.TrimSpace(string(b))
}

// The terminals tmux cannot stand in for: each is asked, through its own
// interface, for the recorded pane.
func TestFocusAsksTheTerminal(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	t.Setenv("KITTY_LISTEN_ON", "unix:/tmp/kitty-42") // the caller's own kitty
	tests := []struct {
		bin  string
		term state.Terminal
		want string
		did  string
	}{
		{"zellij", state.Terminal{Kind: "zellij", Session: "work", Pane: "3"}, "--session work action focus-pane-id terminal_3", "zellij pane 3 of session work"},
		{"kitten", state.Terminal{Kind: "kitty", Pane: "7", Socket: "unix:/tmp/kitty-42"}, "@ --to unix:/tmp/kitty-42 focus-window --match id:7", "kitty window 7"},
		{"wezterm", state.Terminal{Kind: "wezterm", Pane: "12"}, "cli activate-pane --pane-id 12", "WezTerm pane 12"},
	}
	for _, tt := range tests {
		t.Run(tt.bin, func(t *testing.T) {
			log := fakeBin(t, dir, tt.bin, 0)
			did, err := Focus(context.Background(), tt.term, Options{})
			if err != nil || did != tt.did {
				t.Fatalf("Focus = %q, %v; want %q", did, err, tt.did)
			}
			if got := asked(t, log); got != tt.want {
				t.Fatalf("%s was asked %q, want %q", tt.bin, got, tt.want)
			}
		})
	}
}

// When it cannot, it says why.
func TestFocusSaysWhyNot(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	fakeBin(t, dir, "wezterm", 1)
	tests := []struct {
		term state.Terminal
		want string
	}{
		{state.Terminal{}, "was not recorded"},
		{state.Terminal{Program: "Apple_Terminal"}, "Apple_Terminal, which spcstr cannot drive"},
		{state.Terminal{Kind: "zellij", Session: "work", Pane: "1"}, "zellij is not installed here"},
		{state.Terminal{Kind: "wezterm", Pane: "1"}, "wezterm cli activate-pane"},
		{state.Terminal{Kind: "tmux"}, "did not give the session its pane"},
	}
	for _, tt := range tests {
		_, err := Focus(context.Background(), tt.term, Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Focus(%+v) = %v, want an error saying %q", tt.term, err, tt.want)
		}
	}
	if _, err := Focus(context.Background(), state.Terminal{}, Options{}); !errors.Is(err, ErrUnknown) {
		t.Errorf("unrecorded terminal: %v, want ErrUnknown", err)
	}
}

// tmux: the pane's window and the pane become the active ones.
func TestFocusTmux(t *testing.T) {
	tm, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed")
	}
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	tmux := func(args ...string) string {
		out, err := exec.Command(tm, append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tmux("-f", "/dev/null", "new-session", "-d", "-s", "work", "-x", "80", "-y", "24", "sh")
	t.Cleanup(func() { exec.Command(tm, "-S", sock, "kill-server").Run() })
	target := tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "work", "sh")
	tmux("split-window", "-d", "-t", target, "sh")
	tmux("select-window", "-t", "work:0")
	did, err := Focus(context.Background(), state.Terminal{Kind: "tmux", Socket: sock, Pane: target}, Options{Getenv: func(k string) string { return map[string]string{"TMUX": sock + ",1,0", "PATH": os.Getenv("PATH")}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(did, "tmux pane "+target+", window 1 of session work") {
		t.Fatalf("Focus said %q", did)
	}
	if got := tmux("display-message", "-p", "-t", target, "#{window_active}#{pane_active}"); got != "11" {
		t.Fatalf("window_active, pane_active = %s after Focus, want 11", got)
	}
	if _, err := Focus(context.Background(), state.Terminal{Kind: "tmux", Socket: sock, Pane: "%999"}, Options{Getenv: func(k string) string { return map[string]string{"TMUX": sock + ",1,0", "PATH": os.Getenv("PATH")}[k] }}); err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Fatalf("a gone pane: %v", err)
	}
}
