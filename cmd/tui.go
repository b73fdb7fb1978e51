package cmd

import (
	"errors"

	"github.com/spf13/cobra"
)

// addTUI registers "spcstr tui" and makes it the root command's default.
func addTUI(root *cobra.Command) {
	run := func(cmd *cobra.Command, _ []string) error {
		return errors.New("the dashboard is not built yet")
	}
	root.RunE = run
	root.AddCommand(&cobra.Command{
		Use:          "tui",
		Short:        "Open the live dashboard (also: bare spcstr)",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE:         run,
	})
}
