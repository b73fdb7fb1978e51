package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui"
)

// tuiFlags are the dashboard's flags (spcstr tui, bare spcstr, and what
// spcstr demo and spcstr replay open).
type tuiFlags struct {
	Dir  string
	All  bool
	Bell bool
	// Notify sends desktop notifications (also: dashboard.notify).
	Notify bool
	// Registry and Title are set by demo and replay, for their scratch
	// project (hidden flags).
	Registry string
	Title    string
}

const tuiLong = `Shows this project's Claude Code sessions live, from the files spcstr hook
writes under .spcstr/: each session's status, agents, files, tools, prompts,
errors, tokens and context use, requirement status, feedback-loop phases and
a tail of its events. Made to sit in a side pane: usable from 40 columns.
Press ? for every key, q to quit. NO_COLOR turns colors off.

--all lists every project on this machine that spcstr has recorded (the
projects list that spcstr init and each SessionStart keep, plus the live
sessions of the registry), grouped, each with its live and recent
sessions; enter opens a project's dashboard, and q there comes back.`

// newTuiCmd builds the tui command.
func newTuiCmd() *cobra.Command {
	var f tuiFlags
	c := &cobra.Command{
		Use:          "tui",
		Short:        "Open the live dashboard (also: bare spcstr)",
		Long:         tuiLong,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return dashboard(cmd.Context(), cmd, f)
		},
	}
	f.register(c.Flags())
	return c
}

func (f *tuiFlags) register(fl *pflag.FlagSet) {
	fl.StringVarP(&f.Dir, "dir", "C", "", "project folder (default: the nearest folder holding .spcstr/)")
	fl.BoolVar(&f.Bell, "bell", false, "ring the terminal bell when a session starts waiting for you (also: dashboard.bell in .spcstr/config.yaml)")
	fl.BoolVar(&f.Notify, "notify", false, "a desktop notification when a session starts waiting for you or a long turn ends, unless its pane is in front (also: dashboard.notify in .spcstr/config.yaml)")
	fl.BoolVar(&f.All, "all", false, "every recorded project on this machine, grouped; enter opens one")
	fl.StringVar(&f.Registry, "registry", "", "session registry `FILE` (demo and replay)")
	fl.StringVar(&f.Title, "title", "", "shown in the header after spcstr (demo and replay)")
	_ = fl.MarkHidden("registry")
	_ = fl.MarkHidden("title")
}

// addTUI registers "spcstr tui" and makes the dashboard the root command's
// default.
func addTUI(root *cobra.Command) {
	var f tuiFlags
	f.register(root.Flags())
	root.RunE = func(cmd *cobra.Command, _ []string) error {
		return dashboard(cmd.Context(), cmd, f)
	}
	root.AddCommand(newTuiCmd())
}

// dashboard opens one project's dashboard, or every project's with --all.
func dashboard(ctx context.Context, c *cobra.Command, f tuiFlags) error {
	if !terminal(c.InOrStdin()) || !terminal(c.OutOrStdout()) {
		// Say so plainly rather than let the terminal library fail on
		// a pipe with its own words.
		_, _ = fmt.Fprintln(c.ErrOrStderr(), "spcstr tui needs a terminal: run it in one, without redirecting its input or output.")
		return withCode(1, errors.New(""))
	}
	project := tui.Options{
		RegistryPath: f.Registry,
		NoColor:      tui.NoColorEnv(os.Getenv),
		ReqActions:   tui.RequirementActions(),
		Bell:         f.Bell,
		Notify:       f.Notify,
		Title:        f.Title,
	}
	if f.All {
		if f.Dir != "" {
			return errors.New("--all shows every project: give --all or --dir, not both")
		}
		home, _ := os.UserHomeDir()
		return tui.RunAll(ctx, tui.AllOptions{Home: home, RegistryPath: f.Registry, Project: project}, c.InOrStdin(), c.OutOrStdout())
	}
	root := f.Dir
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("current directory: %w", err)
		}
		root = state.FindRoot(os.Getenv("CLAUDE_PROJECT_DIR"), wd)
	} else {
		root = state.FindRoot("", root)
	}
	project.Layout = state.Layout{Root: root}
	return tui.Run(ctx, project, c.InOrStdin(), c.OutOrStdout())
}

// terminal reports whether f is a terminal (a file that is not one, or a
// reader or writer that is not a file, is not).
func terminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(file.Fd())
}
