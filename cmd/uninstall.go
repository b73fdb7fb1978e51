package cmd

import (
	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/install"
)

func newUninstallCmd() *cobra.Command {
	var opts install.Options
	c := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove spcstr's hooks from the settings files",
		Long: `Removes spcstr's own hook entries ("spcstr hook" or "<path>/spcstr hook",
with or without an event argument) from .claude/settings.json and
.claude/settings.local.json (with --global: the user settings file), and the
groups and event lists that become empty because of it. Nothing else in the
files changes; the previous file is kept in .spcstr/backups/ (git ignores
it; with --global: beside the user settings file as settings.json.bak).

.spcstr/ (the recorded sessions) and its .gitignore line are kept.`,
		Example: `  spcstr uninstall --dry-run  # show what would be removed
  spcstr uninstall --global   # from ~/.claude/settings.json`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if opts.Root, err = projectRoot(); err != nil {
				return err
			}
			res, err := install.Uninstall(opts)
			if err != nil {
				return err
			}
			return res.WriteUninstall(cmd.OutOrStdout())
		},
	}
	c.Flags().BoolVar(&opts.Global, "global", false, "remove from the user settings file instead of the project's")
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the changes as a unified diff and write nothing")
	return c
}
