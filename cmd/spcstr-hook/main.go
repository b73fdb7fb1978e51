// Command spcstr-hook is spcstr's lean hook recorder: what "spcstr hook"
// does, with the same arguments and behaviour, in a binary that links none
// of the dashboard's terminal libraries, the OpenTelemetry SDK or net/http,
// so that the package initialisation of those never runs on a tool call.
// spcstr init registers it when it is installed beside spcstr; without it
// "spcstr hook" does the same work, a little slower.
//
//	spcstr-hook [--dry-run] [EVENT]   record one hook event read from stdin (always exits 0)
//	spcstr-hook --version             print the version (the same line as spcstr --version)
//
// The hook runs once per Claude Code event and lives a few milliseconds, so
// the runtime skips what only long-running processes need: reading the
// cgroup CPU limit at start (a handful of file reads and a parse of
// /proc/self/mountinfo) and re-checking it from sysmon.
//
//go:debug containermaxprocs=0
//go:debug updatemaxprocs=0
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/recorder"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is spcstr-hook's command line: recorder.Main parses it, as it does
// "spcstr hook"'s, so both take the same arguments and answer the same.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	requirements.MatchPython = matchThroughSpcstr
	return recorder.Main(context.Background(), args, recorder.Options{Stdin: stdin, Stdout: stdout, Stderr: stderr})
}

// spcstrTimeout bounds one run of spcstr matchpy, whose own match timeout
// is 100 ms.
const spcstrTimeout = 2 * time.Second

// matchThroughSpcstr matches a requirement command pattern that only
// Python's syntax accepts by running "spcstr matchpy": spcstr beside this
// binary, else on PATH. Linking the backtracking engine here would cost
// every hook call its package init; such patterns are rare
// (docs/performance.md has both figures).
func matchThroughSpcstr(pattern, text string) (bool, error) {
	bin, err := findSpcstr()
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), spcstrTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "matchpy", pattern)
	cmd.Stdin = strings.NewReader(text)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return false, nil
	}
	return false, fmt.Errorf("%s matchpy: %w: %s", bin, err, strings.TrimSpace(stderr.String()))
}

// findSpcstr finds spcstr beside this binary (symlinks resolved), else on
// PATH.
func findSpcstr() (string, error) {
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), "spcstr"+filepath.Ext(exe))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	if p, err := exec.LookPath("spcstr"); err == nil {
		return p, nil
	}
	return "", errors.New("it needs spcstr, which is not installed beside spcstr-hook or on PATH (go install ./cmd/... from a checkout)")
}
