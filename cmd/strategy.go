package cmd

import (
	"fmt"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/doctor"
	"github.com/dylan-gluck/spcstr/internal/strategy"
	"github.com/dylan-gluck/spcstr/state"
)

func newStrategyCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "strategy",
		Short: "List, check and try out the strategies of .spcstr/config.yaml",
		Long: `Strategies are the built-in policies listed under strategies: in
.spcstr/config.yaml (docs/feedback-and-strategies.md).

  list      each configured strategy: enabled, fail_mode, dry-run, hooks
  validate  what spcstr doctor says about the strategies; exit 1 on an error
  dry-run   replay a recorded session or a transcript through the strategies
            and print every decision they would take, writing nothing`,
		SilenceUsage: true,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			humanOutput(cmd, asJSON)
		},
	}
	c.PersistentFlags().BoolVar(&asJSON, "json", false, "print JSON")

	list := &cobra.Command{
		Use:   "list",
		Short: "List the configured strategies",
		Long: `Lists every strategy of .spcstr/config.yaml in file order, disabled ones
included: whether it is enabled, its fail_mode, whether its decisions are
only recorded (dry-run: its own dry_run, the global dry_run or
SPCSTR_DRY_RUN=1) and the hooks it uses,
"!" marking those where it may block or deny. Problems are listed after the
table; spcstr strategy validate explains them.

--json prints {"strategies": [{"name", "description", "enabled",
"fail_mode", "dry_run", "hooks"}], "problems": ["..."]}.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := strategyConfig()
			if err != nil {
				return err
			}
			list, problems := strategy.List(cfg, os.Getenv)
			if asJSON {
				return strategy.WriteListJSON(cmd.OutOrStdout(), list, problems)
			}
			return strategy.WriteList(cmd.OutOrStdout(), list, problems)
		},
	}

	validate := &cobra.Command{
		Use:   "validate",
		Short: "Check the strategies configuration (exit 1 on an error)",
		Long: `Runs spcstr doctor's config and strategies checks: config.yaml parses,
every strategy's options are valid (an error names its line and column in
config.yaml), and no two enabled strategies block at the same hook.

Exit status: 0 when there is no problem, 1 otherwise. --json prints the
same report as spcstr doctor --json.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := projectRoot()
			if err != nil {
				return err
			}
			checks := slices.DeleteFunc(doctor.DefaultChecks(), func(c doctor.Check) bool {
				return c.Name != "config" && c.Name != "strategies"
			})
			return runDoctor(cmd, root, checks, asJSON)
		},
	}
	c.AddCommand(list, validate, newStrategyDryRunCmd(&asJSON))
	return c
}

// strategyConfig reads this project's config.yaml; one that does not parse
// is an error here (the recorder would fall back to the defaults).
func strategyConfig() (*config.Config, error) {
	root, err := projectRoot()
	if err != nil {
		return nil, err
	}
	layout := state.Layout{Root: root}
	cfg, err := config.Load(layout.ConfigPath())
	if err != nil {
		return nil, fmt.Errorf("%w (spcstr strategy validate says more)", err)
	}
	return cfg, nil
}
