package cmd

import (
	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/recorder"
)

func newHookCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "hook [EVENT]",
		Short: "Record one Claude Code hook event (registered by spcstr init)",
		Long: `Reads one hook event as JSON on stdin, updates the session's state in
.spcstr/sessions/<session_id>/state.json, appends the event to
.spcstr/logs/<event>.json, and prints a JSON answer only when a gate must
block or add context. EVENT is optional: the payload's hook_event_name
decides (both SessionStart and session_start spellings are accepted).

It always exits 0: problems of spcstr's own go to stderr and the session's
errors, never to Claude Code as a failure.`,
		Args:               cobra.ArbitraryArgs,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		SilenceUsage:       true,
		RunE: func(cmd *cobra.Command, args []string) error {
			event := ""
			if len(args) > 0 {
				event = args[0]
			}
			recorder.Run(cmd.Context(), recorder.Options{
				Stdin:  cmd.InOrStdin(),
				Stdout: cmd.OutOrStdout(),
				Stderr: cmd.ErrOrStderr(),
				Event:  event,
			})
			return nil
		},
	}
}
