//go:build unix

package cmd

import (
	"context"
	"fmt"
	"os"
	"syscall"

	"github.com/spf13/cobra"
)

// runHelper replaces this process with the helper, which then owns the
// terminal and the signals (an interrupt, or a kill, reaches it directly).
// When the command's output is not the process's own (tests), the helper
// runs as a child instead.
func runHelper(ctx context.Context, helper string, args []string, c *cobra.Command) error {
	if c.OutOrStdout() == os.Stdout && c.ErrOrStderr() == os.Stderr {
		argv := append([]string{helper}, args...)
		if err := syscall.Exec(helper, argv, os.Environ()); err != nil {
			return fmt.Errorf("run %s: %w", helper, err)
		}
	}
	return runChild(ctx, helper, args, c)
}
