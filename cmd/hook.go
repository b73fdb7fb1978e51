package cmd

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/recorder"
)

// hookFastPath recognises the command line Claude Code runs on every hook
// event, `spcstr hook [EVENT]`, so that Execute can run the recorder without
// first building the whole command tree (every command's flags and help):
// on the hot path of every tool call that alone cost about 1.5 ms. Anything
// else (flags such as --help, more arguments) goes through cobra as usual.
func hookFastPath(args []string) (event string, ok bool) {
	if len(args) == 0 || args[0] != "hook" || len(args) > 2 {
		return "", false
	}
	if len(args) == 2 {
		if strings.HasPrefix(args[1], "-") {
			return "", false
		}
		event = args[1]
	}
	return event, true
}

// runHook runs the recorder; it always exits 0 (docs/answers.md).
func runHook(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, event string) int {
	recorder.Run(ctx, recorder.Options{Stdin: stdin, Stdout: stdout, Stderr: stderr, Event: event})
	return 0
}

func newHookCmd() *cobra.Command {
	var dry bool
	c := &cobra.Command{
		Use:   "hook [EVENT]",
		Short: "Record one Claude Code hook event (registered by spcstr init)",
		Long: `Reads one hook event as JSON on stdin, updates the session's state in
.spcstr/sessions/<session_id>/state.json, appends the event to
.spcstr/logs/<event>.json, and prints a JSON answer only when a gate must
block or add context. EVENT is optional: the payload's hook_event_name
decides (both SessionStart and session_start spellings are accepted).

It always exits 0: problems of spcstr's own go to stderr and the session's
errors, never to Claude Code as a failure. --dry-run does what
SPCSTR_DRY_RUN=1 does: every gate's decision is recorded, none enforced.`,
		Args:               cobra.ArbitraryArgs,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		SilenceUsage:       true,
		RunE: func(cmd *cobra.Command, args []string) error {
			event := ""
			if len(args) > 0 {
				event = args[0]
			}
			recorder.Run(cmd.Context(), recorder.Options{Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(),
				Stderr: cmd.ErrOrStderr(), Event: event, Getenv: dryRunEnv(dry)})
			return nil
		},
	}
	c.Flags().BoolVar(&dry, "dry-run", false, "record every gate's decision without enforcing it (as SPCSTR_DRY_RUN=1)")
	return c
}
