package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/buildinfo"
)

// versionString describes this build (internal/buildinfo): spcstr and
// spcstr-hook print the same line.
func versionString() string { return buildinfo.String() }

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:          "version",
		Short:        "Print the version, commit and build date",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), versionString())
			return err
		},
	}
}
