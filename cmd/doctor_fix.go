package cmd

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/doctor"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/recorder"
	"github.com/dylan-gluck/spcstr/state"
)

// doctorFix mends what the records check finds before the report is made:
// a state.json that does not parse or is behind its logs is rebuilt from
// the logs (a damaged one is set aside first, never overwritten), and the
// torn lines of an observability log are moved to <name>.torn. What it
// did is said on out.
func doctorFix(cmd *cobra.Command, root string, out io.Writer) {
	layout := state.Layout{Root: root}
	cfg, err := config.Load(layout.ConfigPath())
	if err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "spcstr doctor --fix: %v (using defaults)\n", err)
	}
	report := doctor.Run(cmd.Context(), doctor.DefaultEnv(root), []doctor.Check{doctor.RecordsCheck()})
	for _, f := range report.Findings {
		switch f.Repair.Kind {
		case doctor.RepairRebuildState:
			id := f.Repair.Session
			if _, err := recorder.RebuildState(cmd.Context(), layout, id, cfg); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "spcstr doctor --fix: rebuild %s: %v\n", termtext.Cut(id, 80), err)
				continue
			}
			fmt.Fprintf(out, "Fixed: rebuilt %s from the logs\n", id)
		case doctor.RepairDropTorn:
			n, err := doctor.DropTornLines(f.Repair.Path)
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "spcstr doctor --fix: %s: %v\n", f.Repair.Path, err)
				continue
			}
			fmt.Fprintf(out, "Fixed: %d torn lines of %s moved to %s.torn\n", n, f.Repair.Path, filepath.Base(f.Repair.Path))
		}
	}
}
