package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TuiHelper is the companion binary that draws the dashboard. Bubble Tea,
// Lip Gloss and the terminal libraries live there only: linked into
// spcstr, their package initialisation would run on every hook.
const TuiHelper = "spcstr-tui"

// TuiFlags are the dashboard's flags (spcstr tui, bare spcstr, and what
// spcstr demo and spcstr replay open).
type TuiFlags struct {
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

// TuiRunner opens the dashboard.
type TuiRunner func(ctx context.Context, c *cobra.Command, f TuiFlags) error

const tuiLong = `Shows this project's Claude Code sessions live, from the files spcstr hook
writes under .spcstr/: each session's status, agents, files, tools, prompts,
errors, tokens and context use, requirement status, feedback-loop phases and
a tail of its events. Made to sit in a side pane: usable from 40 columns.
Press ? for every key, q to quit. NO_COLOR turns colors off.

--all lists every project on this machine that spcstr has recorded (the
projects list that spcstr init and each SessionStart keep, plus the live
sessions of the registry), grouped, each with its live and recent
sessions; enter opens a project's dashboard, and q there comes back.

The dashboard is drawn by the companion binary spcstr-tui, installed next
to spcstr (so that "spcstr hook" never loads the terminal libraries).`

// NewTuiCmd builds the tui command around run: spcstr's own tree hands the
// parsed flags to the companion binary, which builds the same command
// around the dashboard.
func NewTuiCmd(run TuiRunner) *cobra.Command {
	var f TuiFlags
	c := &cobra.Command{
		Use:          "tui",
		Short:        "Open the live dashboard (also: bare spcstr)",
		Long:         tuiLong,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), cmd, f)
		},
	}
	f.register(c.Flags())
	return c
}

func (f *TuiFlags) register(fl *pflag.FlagSet) {
	fl.StringVarP(&f.Dir, "dir", "C", "", "project folder (default: the nearest folder holding .spcstr/)")
	fl.BoolVar(&f.Bell, "bell", false, "ring the terminal bell when a session starts waiting for you (also: dashboard.bell in .spcstr/config.yaml)")
	fl.BoolVar(&f.Notify, "notify", false, "a desktop notification when a session starts waiting for you or a long turn ends, unless its pane is in front (also: dashboard.notify in .spcstr/config.yaml)")
	fl.BoolVar(&f.All, "all", false, "every recorded project on this machine, grouped; enter opens one")
	fl.StringVar(&f.Registry, "registry", "", "session registry `FILE` (demo and replay)")
	fl.StringVar(&f.Title, "title", "", "shown in the header after spcstr (demo and replay)")
	_ = fl.MarkHidden("registry")
	_ = fl.MarkHidden("title")
}

// Args is f as the companion's command line.
func (f TuiFlags) Args() []string {
	var args []string
	if f.Dir != "" {
		args = append(args, "--dir="+f.Dir)
	}
	if f.All {
		args = append(args, "--all")
	}
	if f.Bell {
		args = append(args, "--bell")
	}
	if f.Notify {
		args = append(args, "--notify")
	}
	if f.Registry != "" {
		args = append(args, "--registry="+f.Registry)
	}
	if f.Title != "" {
		args = append(args, "--title="+f.Title)
	}
	return args
}

// addTUI registers "spcstr tui" and makes the dashboard the root command's
// default.
func addTUI(root *cobra.Command) {
	var f TuiFlags
	f.register(root.Flags())
	root.RunE = func(cmd *cobra.Command, _ []string) error {
		return runTuiHelper(cmd.Context(), cmd, f)
	}
	root.AddCommand(NewTuiCmd(runTuiHelper))
}

// runTuiHelper replaces spcstr with the companion binary, which then owns
// the terminal.
func runTuiHelper(ctx context.Context, c *cobra.Command, f TuiFlags) error {
	helper, err := findHelper(TuiHelper, "spcstr tui", "the terminal libraries")
	if err != nil {
		return err
	}
	return runHelper(ctx, helper, f.Args(), c)
}

// runTuiChild runs the dashboard as a child process (demo and replay play
// events into their scratch project meanwhile) and returns when it ends.
func runTuiChild(ctx context.Context, c *cobra.Command, f TuiFlags) error {
	helper, err := findHelper(TuiHelper, "spcstr tui", "the terminal libraries")
	if err != nil {
		return err
	}
	return runChild(ctx, helper, f.Args(), c)
}
