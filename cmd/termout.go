package cmd

import (
	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/termtext"
)

// humanOutput makes a command's stdout and stderr safe for a terminal:
// requirement names, messages and file contents come from committed files,
// so escape sequences and controls are stripped (or, for JSON, escaped) on
// the way out. It is the one output boundary of req and doctor.
func humanOutput(cmd *cobra.Command, asJSON bool) {
	if asJSON {
		cmd.SetOut(termtext.JSONWriter(cmd.OutOrStdout()))
	} else {
		cmd.SetOut(termtext.NewWriter(cmd.OutOrStdout()))
	}
	cmd.SetErr(termtext.NewWriter(cmd.ErrOrStderr()))
}
