//go:build !unix

package cmd

import (
	"context"

	"github.com/spf13/cobra"
)

// runHelper runs the helper as a child and passes on its exit status.
func runHelper(ctx context.Context, helper string, args []string, c *cobra.Command) error {
	return runChild(ctx, helper, args, c)
}
