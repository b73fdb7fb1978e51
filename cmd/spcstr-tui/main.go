// Command spcstr-tui is the companion binary behind "spcstr tui" (and bare
// "spcstr", "spcstr demo" and "spcstr replay"): it draws the live
// dashboard. It is a binary of its own so that Bubble Tea, Lip Gloss and
// the terminal libraries are never linked into spcstr, whose hook runs on
// every tool call and would otherwise pay for their initialisation.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/cmd"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui"
)

func main() {
	os.Exit(cmd.RunCompanion(cmd.NewTuiCmd(dashboard), cmd.TuiHelper, "spcstr tui"))
}

// dashboard opens one project's dashboard, or every project's with --all.
func dashboard(ctx context.Context, c *cobra.Command, f cmd.TuiFlags) error {
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
