package cmd

import (
	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/recorder"
)

// isHook recognises the command line Claude Code runs on every hook event,
// `spcstr hook …`, so that Execute hands it to recorder.Main without first
// building the whole command tree (every command's flags and help): on the
// hot path of every tool call that alone cost about 1.5 ms. recorder.Main
// parses the arguments, as it does spcstr-hook's.
func isHook(args []string) bool { return len(args) > 0 && args[0] == "hook" }

// newHookCmd is "spcstr hook" in the command tree, for help, man pages and
// completion, and for callers that run the tree (tests). Its flags are not
// cobra's: recorder.Main parses every argument, as it does for spcstr-hook.
func newHookCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "hook [--dry-run] [EVENT]",
		Short: "Record one Claude Code hook event (registered by spcstr init)",
		Long: `Reads one hook event as JSON on stdin, updates the session's state in
.spcstr/sessions/<session_id>/state.json, appends the event to its log under
.spcstr/logs/, and prints a JSON answer only when a gate must block or add
context. EVENT is optional: the payload's hook_event_name decides (both
SessionStart and session_start spellings are accepted).

It always exits 0: problems of spcstr's own go to stderr and the session's
errors, never to Claude Code as a failure. --dry-run does what
SPCSTR_DRY_RUN=1 does: every gate's decision is recorded, none enforced.
spcstr-hook takes exactly the same arguments (spcstr hook --help).`,
		Args:               cobra.ArbitraryArgs,
		DisableFlagParsing: true,
		SilenceUsage:       true,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Main always exits 0 when it records (docs/answers.md).
			recorder.Main(cmd.Context(), args, recorder.Options{Stdin: cmd.InOrStdin(),
				Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()})
			return nil
		},
	}
}
