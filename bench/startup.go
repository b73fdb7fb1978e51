//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// settle readies the machine for measuring after the builds: the ~50 MB
// they wrote are flushed to disk first (else the kernel's write-back
// competes with the fsyncs every hook figure includes, and moved P1 by
// up to 0.1 between runs), and the binaries are read into the page cache,
// so that no figure's first runs load them from disk.
func settle(bins ...string) {
	syscall.Sync()
	for _, b := range bins {
		_, _ = os.ReadFile(b)
	}
}

// startupRuns is how many times each start-up is measured.
const startupRuns = 15

// benchStartup measures the whole program's start-up, which links the
// dashboard, OpenTelemetry and the backtracking regexp engine: `spcstr
// --version` beside `spcstr-hook --version` (the same line, printed by the
// lean binary), and `spcstr tui` on an empty project to its first frame
// in a tmux pane beside bench/tuifloor, the least a Bubble Tea program
// takes to draw one.
func benchStartup(spcstr, hook, tuifloor, tmp string) error {
	var tFull, tLean []time.Duration
	for i := 0; i < 100; i++ {
		d, _, err := exe(spcstr, []string{"--version"}, nil, nil)
		if err != nil {
			return fmt.Errorf("spcstr --version: %w", err)
		}
		tFull = append(tFull, d)
		d, _, err = exe(hook, []string{"--version"}, nil, nil)
		if err != nil {
			return fmt.Errorf("spcstr-hook --version: %w", err)
		}
		tLean = append(tLean, d)
	}
	fmt.Println()
	fmt.Printf("%-34s median %7s   p90 %7s\n", "spcstr --version", ms(median(tFull)), ms(pct(tFull, 90)))
	fmt.Printf("%-34s median %7s   p90 %7s\n", "spcstr-hook --version", ms(median(tLean)), ms(pct(tLean, 90)))
	verdict("spcstr --version ÷ spcstr-hook --version", float64(median(tFull))/float64(median(tLean)), 3, "")

	tmux, err := exec.LookPath("tmux")
	if err != nil {
		fmt.Printf("%-50s %6s  (goal ≤ 2)  MISSED (not measured: tmux is not installed)\n", "spcstr tui first frame ÷ tuifloor's", "-")
		return nil
	}
	root, err := newProject(filepath.Join(tmp, "startup"))
	if err != nil {
		return err
	}
	sock := filepath.Join(tmp, "tmux-startup.sock")
	// A session that stays keeps the server up between the measured ones
	// (a server whose last session ends exits, racing the next start).
	if out, err := exec.Command(tmux, "-S", sock, "new-session", "-d", "-s", "keep", "--", "sleep", "3600").CombinedOutput(); err != nil {
		return fmt.Errorf("tmux: %v: %s", err, out)
	}
	defer func() { _ = exec.Command(tmux, "-S", sock, "kill-server").Run() }()
	var tTUI, tFloor []time.Duration
	for i := 0; i < startupRuns; i++ {
		d, err := firstFrameIn(tmux, sock, i, "Sessions", spcstr, "tui", "--dir", root)
		if err != nil {
			return fmt.Errorf("spcstr tui: %w", err)
		}
		tTUI = append(tTUI, d)
		d, err = firstFrameIn(tmux, sock, i, "tuifloor sessions", tuifloor)
		if err != nil {
			return fmt.Errorf("tuifloor: %w", err)
		}
		tFloor = append(tFloor, d)
	}
	fmt.Printf("%-34s median %7s   p90 %7s\n", "spcstr tui to first frame (tmux)", ms(median(tTUI)), ms(pct(tTUI, 90)))
	fmt.Printf("%-34s median %7s   p90 %7s\n", "tuifloor to first frame (tmux)", ms(median(tFloor)), ms(pct(tFloor, 90)))
	verdict("spcstr tui first frame ÷ tuifloor's", float64(median(tTUI))/float64(median(tFloor)), 2, "")
	return nil
}

// firstFrameIn starts argv in a new 120×40 tmux window and returns the
// time until the pane shows want. The pane is polled (each poll is one
// tmux capture-pane), so both programs are timed alike.
func firstFrameIn(tmux, sock string, i int, want string, argv ...string) (time.Duration, error) {
	name := "w" + strconv.Itoa(i) + filepath.Base(argv[0])
	args := append([]string{"-S", sock, "new-session", "-d", "-x", "120", "-y", "40", "-s", name, "--"}, argv...)
	cmd := exec.Command(tmux, args...)
	cmd.Env = append(os.Environ(), "SPCSTR_REGISTRY="+filepath.Join(filepath.Dir(sock), "registry.json"))
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("tmux new-session: %v: %s", err, out)
	}
	defer func() { _ = exec.Command(tmux, "-S", sock, "kill-session", "-t", name).Run() }()
	for time.Since(start) < 30*time.Second {
		out, err := exec.Command(tmux, "-S", sock, "capture-pane", "-p", "-t", name).Output()
		if err == nil && strings.Contains(string(out), want) {
			return time.Since(start), nil
		}
	}
	return 0, fmt.Errorf("no %q on the screen after 30 s", want)
}
