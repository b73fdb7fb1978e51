package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// playback runs play (which feeds recorded events into the scratch project
// at dir) and, unless noTUI, the dashboard on that project meanwhile: the
// path spcstr demo and spcstr replay share. Quitting the dashboard stops
// the play. The hooks' stderr, gathered in hookErr, is shown at the end.
func playback(cmd *cobra.Command, dir, registryPath, title string, noTUI bool, hookErr *strings.Builder, play func(ctx context.Context) error) error {
	ctx := cmd.Context()
	out := cmd.OutOrStdout()
	if noTUI {
		if err := play(ctx); err != nil {
			return err
		}
		if hookErr.Len() > 0 {
			fmt.Fprint(cmd.ErrOrStderr(), hookErr.String())
		}
		fmt.Fprintln(out, "done:", dir)
		return nil
	}
	playCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- play(playCtx) }()
	err := dashboard(ctx, cmd, tuiFlags{Dir: dir, Registry: registryPath, Title: title})
	cancel()
	playErr := <-done
	if err != nil {
		return err
	}
	if playErr != nil {
		return playErr
	}
	if hookErr.Len() > 0 {
		fmt.Fprint(cmd.ErrOrStderr(), hookErr.String())
	}
	return nil
}
