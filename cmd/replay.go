package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/replay"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/state"
)

func newReplayCmd() *cobra.Command {
	var (
		src, into string
		speed     float64
		maxGap    time.Duration
		noTUI     bool
		keep      bool
	)
	c := &cobra.Command{
		Use:   "replay SESSION",
		Short: "Play a recorded session back into the dashboard",
		Long: `Reads SESSION (an id or a unique prefix) back from this project's logs and
plays it into a scratch copy of the project: every recorded payload goes
through the real "spcstr hook" again, in time order, with the recorded
spacing divided by --speed, while the dashboard watches the scratch
project. So you can watch what a session did while you were away.

Pauses longer than --max-gap are shortened to it (0 keeps them). The
project's configuration (.spcstr/config.yaml, the requirements files and
the orchestration limits) is copied into the scratch copy, so its
requirements, feedback loop and strategies run again, in dry-run: they
decide and log, enforce nothing and run no command (no bell, no notify or
advisor command). Nothing the replay records reaches this project, the
session registry or the projects list. It is removed afterwards unless --dir or
--keep is given. --no-tui only plays (for scripts and tests).`,
		Example: `  spcstr replay 61d1bf36              # at the recorded pace
  spcstr replay 61d1 --speed 10       # ten times as fast
  spcstr replay 61d1 --no-tui --dir /tmp/r && spcstr export -C /tmp/r`,
		Args:         cobra.ExactArgs(1),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if speed <= 0 {
				return fmt.Errorf("--speed must be positive, not %v", speed)
			}
			if maxGap < 0 {
				return fmt.Errorf("--max-gap must be 0 or more, not %v", maxGap)
			}
			root := src
			if root == "" {
				wd, err := os.Getwd()
				if err != nil {
					return fmt.Errorf("current directory: %w", err)
				}
				root = state.FindRoot(os.Getenv("CLAUDE_PROJECT_DIR"), wd)
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find the spcstr binary: %w", err)
			}
			scratch := into
			if scratch == "" {
				scratch, err = os.MkdirTemp("", "spcstr-replay-")
				if err != nil {
					return err
				}
				if !keep {
					defer os.RemoveAll(scratch)
				}
			}
			if scratch, err = filepath.Abs(scratch); err != nil {
				return err
			}
			if filepath.Clean(scratch) == filepath.Clean(root) {
				return fmt.Errorf("--dir must be a scratch folder, not the project itself")
			}
			rec, err := replay.Load(state.Layout{Root: root}, args[0], scratch, maxGap)
			if err != nil {
				return err
			}
			if err := replay.Setup(scratch, rec.Branch); err != nil {
				return fmt.Errorf("scratch project: %w", err)
			}
			if _, err := replay.CopyPolicy(root, scratch); err != nil {
				return fmt.Errorf("scratch project: %w", err)
			}
			last := rec.Events[len(rec.Events)-1].At
			msg := fmt.Sprintf("replaying %d events of %s (%s at speed %g) into %s\n", len(rec.Events), rec.ID,
				(time.Duration(float64(last) / speed)).Round(100*time.Millisecond), speed, scratch)
			if noTUI {
				fmt.Fprint(cmd.OutOrStdout(), termtext.Strip(msg))
			}
			var hookErr strings.Builder
			opt := replay.Options{Exe: exe, Dir: scratch, Speed: speed, Stderr: &syncWriter{w: &hookErr}}
			err = playback(cmd, scratch, replay.RegistryPath(scratch), "replay "+rec.ID[:min(8, len(rec.ID))], noTUI, &hookErr,
				func(ctx context.Context) error { return replay.Play(ctx, opt, rec.Events) })
			if !noTUI && (keep || into != "") {
				fmt.Fprintln(cmd.OutOrStdout(), "replay project kept at", scratch)
			}
			return err
		},
	}
	f := c.Flags()
	f.Float64Var(&speed, "speed", 1, "pace multiplier: 10 plays ten times as fast")
	f.DurationVar(&maxGap, "max-gap", 10*time.Second, "shorten recorded pauses longer than this (0: keep them)")
	f.StringVarP(&src, "project", "C", "", "the recorded project `DIR` (default: the nearest folder holding .spcstr/)")
	f.StringVar(&into, "dir", "", "replay into this `FOLDER` (kept) instead of a temporary one")
	f.BoolVar(&noTUI, "no-tui", false, "only play the session; do not open the dashboard")
	f.BoolVar(&keep, "keep", false, "keep the temporary scratch project")
	return c
}
