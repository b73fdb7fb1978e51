//go:build unix

// Command peakrss runs a program and writes its peak resident set size
// (KiB) to a file, for the benchmark's P3.
//
// Linux carries a process's peak RSS across exec: a program the benchmark
// starts directly reports the benchmark's own peak (tens of MiB) whatever
// it used itself. Started from this small program instead, the figure is
// the program's own peak, or this program's few MiB if that is larger.
//
// Usage: peakrss OUTFILE PROGRAM [ARG...]; stdin, stdout, stderr and the
// exit code are the program's.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: peakrss OUTFILE PROGRAM [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(2)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	if err := os.WriteFile(os.Args[1], []byte(strconv.FormatInt(rss, 10)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(2)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
