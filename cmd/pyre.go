package cmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/pyregex"
	"github.com/dylan-gluck/spcstr/internal/requirements"
)

// spcstr links the backtracking engine for requirement command patterns
// only Python's syntax accepts; spcstr-hook, which does not, asks spcstr
// through the hidden command below (docs/performance.md says why).
func init() { requirements.MatchPython = pyregex.Match }

// maxPatternText bounds the text matchpy reads from stdin (a Bash command).
const maxPatternText = 16 << 20

// newMatchPyCmd is the command spcstr-hook runs for a Python-only pattern:
//
//	spcstr matchpy PATTERN < TEXT   exit 0: matches, 1: does not, 2: PATTERN is invalid, 3: error
func newMatchPyCmd() *cobra.Command {
	return &cobra.Command{
		Use:          "matchpy PATTERN",
		Short:        "Match a Python-only command pattern against stdin (for spcstr-hook)",
		Hidden:       true,
		Args:         cobra.ExactArgs(1),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := pyregex.Compile(args[0]); err != nil {
				return withCode(2, err)
			}
			text, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), maxPatternText))
			if err != nil {
				return withCode(3, err)
			}
			ok, err := pyregex.Match(args[0], string(text))
			switch {
			case err != nil:
				return withCode(3, fmt.Errorf("match: %w", err))
			case !ok:
				return withCode(1, errors.New(""))
			}
			return nil
		},
	}
}
