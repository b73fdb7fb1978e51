package cmd

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui"
)

// addTUI registers "spcstr tui" and makes it the root command's default.
func addTUI(root *cobra.Command) {
	var (
		dir  string
		all  bool
		bell bool
	)
	run := func(cmd *cobra.Command, _ []string) error {
		if all {
			if dir != "" {
				return errors.New("--all shows every project: give --all or --dir, not both")
			}
			home, _ := os.UserHomeDir()
			return tui.RunAll(cmd.Context(), tui.AllOptions{
				Home: home,
				Project: tui.Options{
					NoColor:    tui.NoColorEnv(os.Getenv),
					ReqActions: tui.RequirementActions(),
					Bell:       bell,
				},
			}, cmd.InOrStdin(), cmd.OutOrStdout())
		}
		start := dir
		if start == "" {
			wd, err := os.Getwd()
			if err != nil {
				return fmt.Errorf("current directory: %w", err)
			}
			start = wd
		}
		rootDir := state.FindRoot(os.Getenv("CLAUDE_PROJECT_DIR"), start)
		if dir != "" {
			rootDir = state.FindRoot("", dir)
		}
		return tui.Run(cmd.Context(), tui.Options{
			Layout:     state.Layout{Root: rootDir},
			NoColor:    tui.NoColorEnv(os.Getenv),
			ReqActions: tui.RequirementActions(),
			Bell:       bell,
		}, cmd.InOrStdin(), cmd.OutOrStdout())
	}
	root.RunE = run
	root.Flags().StringVarP(&dir, "dir", "C", "", "project folder (default: the nearest folder holding .spcstr/)")
	root.Flags().BoolVar(&bell, "bell", false, "ring the terminal bell when a session starts waiting for you (also: dashboard.bell in .spcstr/config.yaml)")
	root.Flags().BoolVar(&all, "all", false, "every recorded project on this machine, grouped; enter opens one")
	tuiCmd := &cobra.Command{
		Use:   "tui",
		Short: "Open the live dashboard (also: bare spcstr)",
		Long: `Shows this project's Claude Code sessions live, from the files spcstr hook
writes under .spcstr/: each session's status, agents, files, tools, prompts,
errors, tokens and context use, requirement status, feedback-loop phases and
a tail of its events. Made to sit in a side pane: usable from 40 columns.
Press ? for every key, q to quit. NO_COLOR turns colors off.

--all lists every project on this machine that spcstr has recorded (the
projects list that spcstr init and each SessionStart keep, plus the live
sessions of the registry), grouped, each with its live and recent
sessions; enter opens a project's dashboard, and q there comes back.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE:         run,
	}
	tuiCmd.Flags().StringVarP(&dir, "dir", "C", "", "project folder (default: the nearest folder holding .spcstr/)")
	tuiCmd.Flags().BoolVar(&bell, "bell", false, "ring the terminal bell when a session starts waiting for you (also: dashboard.bell in .spcstr/config.yaml)")
	tuiCmd.Flags().BoolVar(&all, "all", false, "every recorded project on this machine, grouped; enter opens one")
	root.AddCommand(tuiCmd)
}
