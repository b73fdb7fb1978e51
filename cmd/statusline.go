package cmd

import (
	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/recorder"
)

// isStatusLine recognises `spcstr statusline …`, which Execute hands to
// recorder.Main before building the command tree, as it does a hook.
func isStatusLine(args []string) bool {
	return len(args) > 0 && args[0] == recorder.StatusLine && !(len(args) > 1 && (args[1] == "--help" || args[1] == "-h"))
}

// newStatusLineCmd is "spcstr statusline" in the command tree, for help
// and for callers that run the tree (tests).
func newStatusLineCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "statusline [--run COMMAND]",
		Short: "Claude Code's status line: the live cost, context, rate limits and open requirements",
		Long: `A command for Claude Code's statusLine setting (spcstr init --statusline
registers spcstr-hook statusline, which does the same). Claude Code runs it
every few seconds with the session as JSON on stdin. It prints one line, e.g.

  Opus · ctx 42% · $1.23 · 5h 37% · 7d 12% · 2 reqs open

(the 5-hour and weekly windows only for Pro/Max subscribers), and records
Claude Code's live figure, token totals and rate limits into the session's
state.json: the dashboard shows that figure as Claude Code's while the
session runs, cost-budget and rate-limit enforce on it, and the session's
export gives it.

--run COMMAND runs your own status line command first, with the same input,
and puts its first line before spcstr's.`,
		Args:               cobra.ArbitraryArgs,
		DisableFlagParsing: true,
		SilenceUsage:       true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
				return cmd.Help()
			}
			recorder.Main(cmd.Context(), append([]string{recorder.StatusLine}, args...), recorder.Options{Stdin: cmd.InOrStdin(),
				Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()})
			return nil
		},
	}
}
