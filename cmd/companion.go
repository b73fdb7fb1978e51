package cmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/termtext"
)

// RunCompanion runs a companion binary's command c (built by NewTuiCmd or
// NewOtelCmd) under the binary's own name, with an interrupt or SIGTERM
// cancelling its context, and returns the process exit code. An error is
// printed after what (its spcstr command, "spcstr tui"), sanitised.
func RunCompanion(c *cobra.Command, name, what string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c.Use = name
	c.Version = Version()
	c.SilenceErrors = true
	if err := c.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, what+":", termtext.Strip(err.Error()))
		return 1
	}
	return 0
}
