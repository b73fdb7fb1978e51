//go:build linux

package tui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"
)

// staticModel shows one view and nothing else.
type staticModel struct{ v tea.View }

func (s staticModel) Init() tea.Cmd                       { return nil }
func (s staticModel) Update(tea.Msg) (tea.Model, tea.Cmd) { return s, nil }
func (s staticModel) View() tea.View                      { return s.v }

// firstWrite keeps the first write that enters the alternate screen:
// Bubble Tea's first frame.
type firstWrite struct {
	mu    sync.Mutex
	frame []byte
	done  chan struct{}
}

func (w *firstWrite) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.frame == nil && bytes.Contains(b, []byte(ansi.SetModeAltScreenSaveCursor)) {
		w.frame = append([]byte(nil), b...)
		close(w.done)
	}
	return len(b), nil
}

// bubbleTeaFrame is what Bubble Tea writes for v as its first frame on a
// w×h terminal with profile.
func bubbleTeaFrame(t *testing.T, v tea.View, w, h int, profile colorprofile.Profile) []byte {
	t.Helper()
	out := &firstWrite{done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Input from a terminal, as the dashboard's is: Bubble Tea's renderer
	// then counts on a line feed keeping the column, as frameBytes does.
	p := tea.NewProgram(staticModel{v}, tea.WithContext(ctx), tea.WithInput(openPTY(t)), tea.WithOutput(out),
		tea.WithWindowSize(w, h), tea.WithColorProfile(profile), tea.WithoutSignalHandler(),
		tea.WithEnvironment([]string{"TERM=xterm-256color"}))
	ran := make(chan struct{})
	go func() { _, _ = p.Run(); close(ran) }()
	select {
	case <-out.done:
	case <-time.After(30 * time.Second):
		t.Fatal("Bubble Tea drew no frame in 30 s")
	}
	// Quit, not the context: a program ended by its context closes its
	// input while the input's reader may still use it (a data race inside
	// cancelreader that -race reported in 2 of 30 runs); quitting
	// waits for the reader first.
	p.Quit()
	select {
	case <-ran:
	case <-time.After(30 * time.Second):
		cancel()
		<-ran
		t.Fatal("Bubble Tea did not quit in 30 s")
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	return out.frame
}

// openPTY opens a pseudo-terminal and returns its terminal side.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pseudo-terminal number: %v", err)
	}
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { pts.Close() })
	return pts
}

// onScreen is what a w×h tmux pane shows, with its colours, after the
// bytes in file were written to it.
func onScreen(t *testing.T, tm, sock, file string, w, h int) string {
	t.Helper()
	name := filepath.Base(file)
	run := func(args ...string) string {
		out, err := exec.Command(tm, append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	// Shown in raw mode, as the dashboard writes its frames.
	run("new-session", "-d", "-s", name, "-x", strconv.Itoa(w), "-y", strconv.Itoa(h),
		fmt.Sprintf("stty raw -echo && cat %s && tmux -S %s wait-for -S %s-shown; sleep 3600", file, sock, name))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, tm, "-S", sock, "wait-for", name+"-shown").CombinedOutput(); err != nil {
		t.Fatalf("%s never shown: %v\n%s", name, err, out)
	}
	return run("capture-pane", "-e", "-p", "-t", name)
}

// TestFirstFrameAsBubbleTeaDrawsIt guards firstframe.go: the frame the
// dashboard draws before Bubble Tea starts is, on a real terminal (tmux),
// exactly what Bubble Tea's own first frame of the same view shows, in
// colour and without, at a narrow and a wide size: a Bubble Tea or
// ultraviolet that draws differently fails here.
func TestFirstFrameAsBubbleTeaDrawsIt(t *testing.T) {
	tm := needTmux(t)
	dir := t.TempDir()
	sock := filepath.Join(dir, "tmux.sock")
	if out, err := exec.Command(tm, "-S", sock, "-f", "/dev/null", "start-server", ";", "set-option", "-g", "status", "off").CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command(tm, "-S", sock, "kill-server").Run() })
	cases := []struct {
		name    string
		w, h    int
		noColor bool
		profile colorprofile.Profile
	}{
		{"colour-120", 120, 30, false, colorprofile.TrueColor},
		{"256-200", 200, 40, false, colorprofile.ANSI256},
		{"no-colour-60", 60, 24, true, colorprofile.ASCII},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.populate(t)
			f.gates(t)
			opt := f.options()
			opt.NoColor = c.noColor
			m := New(context.Background(), opt)
			m.tick = 0
			m = drive(t, m, m.Init())
			m = send(t, m, tea.WindowSizeMsg{Width: c.w, Height: c.h})
			v := m.View()
			if !v.AltScreen {
				t.Fatal("the dashboard's view does not use the alternate screen")
			}
			ours := frameBytes(v, c.w, c.h, []string{"TERM=xterm-256color"}, c.profile)
			theirs := bubbleTeaFrame(t, v, c.w, c.h, c.profile)
			a, b := filepath.Join(dir, c.name+"-ours"), filepath.Join(dir, c.name+"-bubbletea")
			if err := os.WriteFile(a, ours, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(b, theirs, 0o644); err != nil {
				t.Fatal(err)
			}
			got, want := onScreen(t, tm, sock, a, c.w, c.h), onScreen(t, tm, sock, b, c.w, c.h)
			if !bytes.Contains([]byte(want), []byte("Sessions")) {
				t.Fatalf("Bubble Tea's frame shows no dashboard:\n%s", want)
			}
			if got != want {
				t.Errorf("the first frame differs from Bubble Tea's\n--- ours\n%s\n--- Bubble Tea's\n%s", got, want)
			}
		})
	}
}

// TestFirstFrameUndo: a program that ends before Bubble Tea drew (killed
// before its first tick) leaves the alternate screen the first frame
// entered; one that drew leaves it itself, and nothing more is written.
func TestFirstFrameUndo(t *testing.T) {
	for _, c := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"never drew", nil, ansi.ResetModeAltScreenSaveCursor + ansi.SetModeTextCursorEnable},
		{"only queries", []string{ansi.RequestModeSynchronizedOutput}, ansi.RequestModeSynchronizedOutput + ansi.ResetModeAltScreenSaveCursor + ansi.SetModeTextCursorEnable},
		{"drew", []string{"\x1b[>4m" + ansi.SetModeAltScreenSaveCursor + "frame", ansi.ResetModeAltScreenSaveCursor}, "\x1b[>4m" + ansi.SetModeAltScreenSaveCursor + "frame" + ansi.ResetModeAltScreenSaveCursor},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := os.Create(filepath.Join(t.TempDir(), "out"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p := &paintedOutput{File: f}
			for _, w := range c.writes {
				if _, err := p.Write([]byte(w)); err != nil {
					t.Fatal(err)
				}
			}
			p.undo()
			got, err := os.ReadFile(f.Name())
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("wrote %q, want %q", got, c.want)
			}
		})
	}
}
