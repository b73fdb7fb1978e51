//go:build unix

package focus

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/state"
)

// envOf is a Getenv of m alone.
func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// listen makes a Unix socket at path that accepts and never answers; what
// each connection sends arrives on the returned channel when it closes.
func listen(t *testing.T, path string) <-chan []byte {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan []byte, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				var all []byte
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					all = append(all, buf[:n]...)
					if err != nil {
						got <- all
						return
					}
				}
			}()
		}
	}()
	return got
}

// tmuxDir makes tmux's socket directory for this user under a fresh
// TMUX_TMPDIR and returns both.
func tmuxDir(t *testing.T) (tmpdir, dir string) {
	tmpdir = t.TempDir()
	dir = filepath.Join(tmpdir, fmt.Sprintf("tmux-%d", os.Getuid()))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return tmpdir, dir
}

// Recorded ids must have their terminal's own form.
func TestCheckIDs(t *testing.T) {
	tests := []struct {
		term state.Terminal
		ok   bool
	}{
		{state.Terminal{Kind: "tmux", Pane: "%3"}, true},
		{state.Terminal{Kind: "tmux", Pane: "3"}, false},
		{state.Terminal{Kind: "tmux", Pane: "%3; run-shell x"}, false},
		{state.Terminal{Kind: "tmux", Pane: "work:1.0"}, false},
		{state.Terminal{Kind: "zellij", Session: "cheerful-tiger", Pane: "3"}, true},
		{state.Terminal{Kind: "zellij", Session: "work", Pane: "terminal_3"}, true},
		{state.Terminal{Kind: "zellij", Session: "-work", Pane: "3"}, false},
		{state.Terminal{Kind: "zellij", Session: "work", Pane: "3 --layout x"}, false},
		{state.Terminal{Kind: "kitty", Pane: "7"}, true},
		{state.Terminal{Kind: "kitty", Pane: "7 or id:8"}, false},
		{state.Terminal{Kind: "kitty", Pane: "7", Socket: "tcp:203.0.113.9:1234"}, false},
		{state.Terminal{Kind: "kitty", Pane: "7", Socket: "unix:@someone"}, false},
		{state.Terminal{Kind: "wezterm", Pane: "12"}, true},
		{state.Terminal{Kind: "wezterm", Pane: "-12"}, false},
		{state.Terminal{Kind: "iterm2", Pane: "w0t1p0:7A7E6D3B-1C2D-4E5F-8A9B-0C1D2E3F4A5B"}, true},
		{state.Terminal{Kind: "iterm2", Pane: `w0t1p0:x" & do shell script "id`}, false},
	}
	for _, tt := range tests {
		err := Check(tt.term, envOf(nil))
		if (err == nil) != tt.ok {
			t.Errorf("Check(%+v) = %v, want ok %v", tt.term, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrUnknown) {
			t.Errorf("Check(%+v) = %v, want ErrUnknown", tt.term, err)
		}
	}
}

// A recorded tmux socket is dialled only when it is the user's own socket
// in tmux's socket directory, or the caller's own server's.
func TestCheckTmuxSocket(t *testing.T) {
	tmpdir, dir := tmuxDir(t)
	env := envOf(map[string]string{"TMUX_TMPDIR": tmpdir})
	good := filepath.Join(dir, "default")
	listen(t, good)
	elsewhere := filepath.Join(t.TempDir(), "evil")
	listen(t, elsewhere)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	openTmp, openDir := tmuxDir(t)
	if err := os.Chmod(openDir, 0o755); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(openDir, "default")
	listen(t, open)
	linkTmp := t.TempDir()
	if err := os.Symlink(dir, filepath.Join(linkTmp, fmt.Sprintf("tmux-%d", os.Getuid()))); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, sock string
		env        map[string]string
		want       string // "" for allowed
	}{
		{"the user's socket", good, nil, ""},
		{"the caller's own server", elsewhere, map[string]string{"TMUX": elsewhere + ",42,0"}, ""},
		{"another directory", elsewhere, nil, "not in tmux's socket directory"},
		{"a relative path", "tmux-0/default", nil, "clean absolute path"},
		{"dot-dot", dir + "/../x/default", nil, "clean absolute path"},
		{"a FIFO", fifo, nil, "is not a socket"},
		{"a symlink", link, nil, "is a symlink"},
		{"a missing socket", filepath.Join(dir, "gone"), nil, "cannot be read"},
		{"an open directory", open, map[string]string{"TMUX_TMPDIR": openTmp}, "others can enter"},
		{"a symlinked directory", filepath.Join(linkTmp, filepath.Base(dir), "default"), map[string]string{"TMUX_TMPDIR": linkTmp}, "is a symlink"},
	}
	if os.Getuid() == 0 {
		other := filepath.Join(dir, "other")
		listen(t, other)
		if err := os.Lchown(other, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct {
			name, sock string
			env        map[string]string
			want       string
		}{"another user's socket", other, nil, "is not yours"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := env
			if tt.env != nil {
				m := map[string]string{"TMUX_TMPDIR": tmpdir}
				for k, v := range tt.env {
					m[k] = v
				}
				e = envOf(m)
			}
			err := Check(state.Terminal{Kind: "tmux", Pane: "%1", Socket: tt.sock}, e)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Check = %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

// A refused terminal is never dialled: Focus and Active run nothing.
func TestRefusedSocketIsNotDialled(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	log := fakeBin(t, dir, "tmux", 0)
	evil := filepath.Join(t.TempDir(), "evil")
	term := state.Terminal{Kind: "tmux", Pane: "%1", Socket: evil}
	if _, err := Focus(context.Background(), term, Options{Getenv: envOf(nil)}); !errors.Is(err, ErrUnknown) {
		t.Fatalf("Focus = %v, want ErrUnknown", err)
	}
	if Active(context.Background(), term, Options{Getenv: envOf(nil)}) {
		t.Fatal("Active of a refused terminal")
	}
	if _, err := os.Stat(log); err == nil {
		t.Fatalf("tmux was run: %s", asked(t, log))
	}
}

// A listener that holds the connection and never answers, in the user's
// own socket directory: the real tmux client is killed at the deadline,
// and what it sent carries none of the caller's other variables.
func TestFocusReturnsByItsDeadline(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	t.Setenv("SPCSTR_FOCUS_SECRET", "hunter2-secret")
	tmpdir, dir := tmuxDir(t)
	sock := filepath.Join(dir, "holder")
	got := listen(t, sock)
	const deadline = time.Second
	env := envOf(map[string]string{"TMUX_TMPDIR": tmpdir, "PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"),
		"SPCSTR_FOCUS_SECRET": os.Getenv("SPCSTR_FOCUS_SECRET")})
	start := time.Now()
	_, err := Focus(context.Background(), state.Terminal{Kind: "tmux", Pane: "%1", Socket: sock}, Options{Getenv: env, Timeout: deadline})
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "did not finish in time") {
		t.Fatalf("Focus = %v, want a deadline error", err)
	}
	// Generous: one command's deadline, the pipe delay and a loaded machine.
	if budget := deadline + 10*time.Second; took > budget {
		t.Fatalf("Focus returned after %v, past the budget %v of a %v deadline", took, budget, deadline)
	}
	select {
	case b := <-got:
		if !strings.Contains(string(b), "TMUX_TMPDIR="+tmpdir) {
			t.Fatalf("the listener did not receive the client's environment: %q", b)
		}
		if strings.Contains(string(b), "hunter2-secret") {
			t.Fatal("the listener received a variable the terminal does not need")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the tmux client never connected (or its connection was never closed)")
	}
}
