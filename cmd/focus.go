package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/focus"
	"github.com/dylan-gluck/spcstr/state"
)

func newFocusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "focus SESSION",
		Short: "Bring a session's terminal pane to the front",
		Long: `Brings the terminal pane a Claude Code session runs in to the front, as the
dashboard's o key does: tmux (its window and pane, and your client when you
are in the same tmux server), zellij, kitty, WezTerm, and iTerm2 on the Mac
it runs on. SESSION is a session id or the start of one. The pane is the one
the session's SessionStart hook ran in; it says so when that terminal cannot
be driven or the pane is gone.`,
		Args:         cobra.ExactArgs(1),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			humanOutput(cmd, false)
			root, err := projectRoot()
			if err != nil {
				return err
			}
			layout := state.Layout{Root: root}
			id, err := layout.FindSession(args[0])
			if err != nil {
				return err
			}
			s, err := layout.Load(id)
			if err != nil {
				return fmt.Errorf("read session %s: %w", id, err)
			}
			did, err := focus.Focus(cmd.Context(), s.Terminal, focus.Options{})
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), did)
			return nil
		},
	}
}
