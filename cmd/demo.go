package cmd

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/demo"
)

func newDemoCmd() *cobra.Command {
	var (
		dir   string
		speed float64
		noTUI bool
		keep  bool
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Watch the dashboard on recorded sessions played into a scratch project",
		Long: `Makes a scratch project (a temporary git repository with .spcstr/), plays
four recorded Claude Code sessions into it through the real "spcstr hook" at
a watchable pace, several at once, and opens the dashboard on them. The
sessions were recorded with the real Claude Code CLI: a feature with a
failing then passing test run whose feedback loop runs to the end (a
reviewer, a test lead and a tester pass), background tester and
reviewer agents, a session that gets compacted, and one that is left stale.

--no-tui only plays the sessions (for scripts and tests). The scratch
project is removed afterwards unless --dir or --keep is given.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if speed <= 0 {
				return fmt.Errorf("--speed must be positive, not %v", speed)
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find the spcstr binary: %w", err)
			}
			sessions, err := demo.Sessions()
			if err != nil {
				return err
			}
			project := dir
			if project == "" {
				project, err = os.MkdirTemp("", "spcstr-demo-")
				if err != nil {
					return err
				}
				if !keep {
					defer os.RemoveAll(project)
				}
			}
			ctx := cmd.Context()
			if err := demo.Setup(ctx, project); err != nil {
				return fmt.Errorf("scratch project: %w", err)
			}
			var hookErr strings.Builder
			opt := demo.Options{Exe: exe, Dir: project, Speed: speed, Stderr: &syncWriter{w: &hookErr}}
			if noTUI {
				fmt.Fprintf(cmd.OutOrStdout(), "playing %d events of %d sessions into %s\n", demo.Count(sessions), len(sessions), project)
			}
			err = playback(cmd, project, demo.RegistryPath(project), "demo", noTUI, &hookErr, func(ctx context.Context) error {
				return demo.Play(ctx, opt, sessions)
			})
			if !noTUI && (keep || dir != "") {
				fmt.Fprintln(cmd.OutOrStdout(), "demo project kept at", project)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "play into this folder (kept) instead of a temporary one")
	cmd.Flags().Float64Var(&speed, "speed", 1, "pace multiplier: 2 plays twice as fast")
	cmd.Flags().BoolVar(&noTUI, "no-tui", false, "only play the sessions; do not open the dashboard")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the temporary scratch project")
	return cmd
}
