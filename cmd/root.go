// Package cmd wires spcstr's commands with cobra: one file per command, each
// a thin layer that parses flags and calls the package that does the work.
// Nothing here exits the process; Execute returns the exit code to main.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/recorder"
)

// exitError carries a specific exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withCode makes a command fail with a specific exit code.
func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// NewRootCmd builds the command tree. out and errOut are where commands
// write (tests pass buffers).
func NewRootCmd(out, errOut io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "spcstr",
		Short: "Make Claude Code sessions visible and keep them honest",
		Long: `spcstr records every Claude Code hook event of a project (spcstr hook),
shows live sessions in a dashboard (spcstr tui, or plain spcstr), enforces
requirements and the review/test feedback loop, and writes session summaries
(spcstr export). Run "spcstr init" in a project to register the hooks.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
	}
	root.SetOut(out)
	root.SetErr(errOut)
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(
		newHookCmd(),
		newExportCmd(),
		newInitCmd(),
		newUninstallCmd(),
		newReqCmd(),
		newDoctorCmd(),
		newRebuildCmd(),
		newVersionCmd(),
		newDemoCmd(),
		newOtelCmd(),
		newStrategyCmd(),
		newSearchCmd(),
		newReplayCmd(),
		newFocusCmd(),
		newCostCmd(),
		newStatusLineCmd(),
		newNotifyCmd(),
		newMatchPyCmd(),
	)
	addTUI(root)
	return root
}

// Execute runs the command line and returns the process exit code.
func Execute() int {
	if isHook(os.Args[1:]) {
		return recorder.Main(context.Background(), os.Args[2:], recorder.Options{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
	}
	if isStatusLine(os.Args[1:]) {
		// As cheap as a hook: it runs every few seconds in every session.
		return recorder.Main(context.Background(), os.Args[1:], recorder.Options{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
	}
	// SIGHUP: the terminal went away (its pane or window closed, tmux's
	// server killed). Ended like an interrupt, the dashboard takes its
	// answer socket away instead of leaving it behind.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	root := NewRootCmd(os.Stdout, os.Stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.err != nil && ee.err.Error() != "" {
				fmt.Fprintln(os.Stderr, "spcstr:", termtext.Strip(ee.err.Error()))
			}
			return ee.code
		}
		// An error can quote a committed file: no raw escapes.
		fmt.Fprintln(os.Stderr, "spcstr:", termtext.Strip(err.Error()))
		return 1
	}
	return 0
}
