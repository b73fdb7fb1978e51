package cmd

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/doctor"
)

func newDoctorCmd() *cobra.Command {
	var asJSON, fix bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Say what is wrong with the installation and how to fix it",
		Long: `Checks this project's spcstr installation: the binary on PATH and the one
the hooks run, hooks registered for every event in the local, project and
user settings (and not filtered by a matcher, "if" or disableAllHooks),
.spcstr/config.yaml, files set aside as corrupt, .spcstr/ ignored by git,
and leftover temporary files. Each problem comes with a fix.

Exit status: 0 when there is no problem (warning or error), 1 otherwise.

--json prints one object:
  {"version": 1, "project": "<root>", "healthy": <bool>,
   "summary": {"ok": n, "info": n, "warning": n, "error": n},
   "findings": [{"check": "<name>", "severity": "ok|info|warning|error",
                 "message": "...", "fix": "...", "path": "..."}]}
("fix" and "path" are omitted when empty).`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := projectRoot()
			if err != nil {
				return err
			}
			humanOutput(cmd, asJSON)
			if fix {
				out := cmd.OutOrStdout()
				if asJSON {
					out = cmd.ErrOrStderr() // stdout is the JSON report
				}
				doctorFix(cmd, root, out)
			}
			return runDoctor(cmd, root, doctor.DefaultChecks(), asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	c.Flags().BoolVar(&fix, "fix", false, "first rebuild states that are damaged or behind their logs, and set torn observability lines aside")
	return c
}

// runDoctor runs checks on the project at root and prints the report (as
// JSON with asJSON); an unhealthy report exits 1.
func runDoctor(cmd *cobra.Command, root string, checks []doctor.Check, asJSON bool) error {
	return runDoctorEnv(cmd, doctor.DefaultEnv(root), checks, asJSON)
}

// runDoctorEnv is runDoctor in env (spcstr strategy validate --config).
func runDoctorEnv(cmd *cobra.Command, env *doctor.Env, checks []doctor.Check, asJSON bool) error {
	report := doctor.Run(cmd.Context(), env, checks)
	var err error
	if asJSON {
		err = report.WriteJSON(cmd.OutOrStdout())
	} else {
		err = report.WriteText(cmd.OutOrStdout())
	}
	if err != nil {
		return err
	}
	if !report.Healthy {
		return withCode(1, errors.New(""))
	}
	return nil
}
