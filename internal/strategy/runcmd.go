package strategy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// drainGrace is how long the output of a command that has exited is still
// read: what it wrote before it exited is already in the pipe, so this only
// bounds a child that left the process group and still holds the pipe.
const drainGrace = 100 * time.Millisecond

// errTimedOut is runCommand's error when the deadline came first.
var errTimedOut = errors.New("timed out")

// runCommand runs cmd (Stdin, Dir and Env set) until the command itself
// exits, or ctx ends (errTimedOut: the whole process group is killed).
// Its answer counts as soon as it exits, as it does for Claude Code: a
// background child that still holds stdout (`sleep 3 & echo '{…}'`)
// cannot hold the hook. Once the command has exited, its process group is
// killed, and its output is read for at most drainGrace more. stdout and
// stderr keep what they are given (capped writers). The error is the
// command's own (*exec.ExitError for an exit status or a signal).
func runCommand(ctx context.Context, cmd *exec.Cmd, stdout, stderr io.Writer) error {
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return err
	}
	// The command gets the write ends as files: Wait then returns when the
	// process exits, whoever else holds them.
	cmd.Stdout, cmd.Stderr = outW, errW
	setGroup(cmd)
	startErr := cmd.Start()
	outW.Close()
	errW.Close()
	if startErr != nil {
		outR.Close()
		errR.Close()
		return startErr
	}
	done := make(chan struct{}, 2)
	drain := func(r *os.File, w io.Writer) {
		_, _ = io.Copy(w, r)
		done <- struct{}{}
	}
	go drain(outR, stdout)
	go drain(errR, stderr)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var runErr error
	select {
	case runErr = <-exited:
	case <-ctx.Done():
		killTree(cmd)
		if err := <-exited; err == nil {
			runErr = nil // it finished as the deadline came
		} else {
			runErr = errTimedOut
		}
	}
	// Whatever the command left running goes with it.
	killTree(cmd)
	deadline := time.Now().Add(drainGrace)
	_ = outR.SetReadDeadline(deadline)
	_ = errR.SetReadDeadline(deadline)
	<-done
	<-done
	outR.Close()
	errR.Close()
	if runErr != nil && !errors.Is(runErr, errTimedOut) {
		var exit *exec.ExitError
		if !errors.As(runErr, &exit) {
			return fmt.Errorf("wait: %w", runErr)
		}
	}
	return runErr
}
