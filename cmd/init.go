package cmd

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/install"
	"github.com/dylan-gluck/spcstr/internal/projects"
	"github.com/dylan-gluck/spcstr/internal/termtext"
)

func newInitCmd() *cobra.Command {
	var opts install.Options
	c := &cobra.Command{
		Use:   "init",
		Short: "Register spcstr's hooks and create .spcstr/ in this project",
		Long: `Registers spcstr's recorder for every Claude Code hook event in
.claude/settings.json (with --global: ~/.claude/settings.json, or
$CLAUDE_CONFIG_DIR/settings.json), creates .spcstr/ with logs/ and sessions/,
and adds .spcstr/ to .gitignore. The recorder is spcstr-hook, the lean
binary, when it is installed beside this spcstr, else "spcstr hook" (the
same records, a little slower on every tool call).

It merges: every other key and hook in the file stays as it is, in the same
order. Running it again changes nothing. The previous file is kept as
.spcstr/backups/settings.json.bak, where git ignores it (with --global:
beside the user settings file). It refuses a project settings file whose
path leads out of the project (a symlink, or a symlinked .claude folder).
When the recorder's binary is not the one found on PATH,
the hooks run it by its absolute path. WorktreeCreate is never registered: a hook there
would replace Claude Code's own worktree creation.`,
		Example: `  spcstr init            # this project
  spcstr init --dry-run  # show the changes as a diff, write nothing
  spcstr init --global   # every project (each still needs its .spcstr/)`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if opts.Root, err = projectRoot(); err != nil {
				return err
			}
			if opts.Command, err = hookCommand(); err != nil {
				return err
			}
			res, err := install.Init(opts)
			if err != nil {
				return err
			}
			if !opts.DryRun && res.ProjectSkipped == "" {
				// spcstr tui --all lists the project from now on.
				if err := projects.Remember(cmd.Context(), projects.Path(os.Getenv), opts.Root, time.Now()); err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), "spcstr init:", termtext.Line(err.Error()))
				}
			}
			return res.WriteInit(cmd.OutOrStdout())
		},
	}
	c.Flags().BoolVar(&opts.Global, "global", false, "register in the user settings file (~/.claude/settings.json) instead of the project's")
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the changes as a unified diff and write nothing")
	c.Flags().StringVar(&opts.StatusLine, "statusline", "", "also register spcstr's status line (the live cost, context, rate limits); it runs yours first, or with =keep leaves yours alone")
	c.Flags().Lookup("statusline").NoOptDefVal = "on"
	return c
}
