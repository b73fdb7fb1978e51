package cmd

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/doctor"
	"github.com/dylan-gluck/spcstr/internal/strategy"
	"github.com/dylan-gluck/spcstr/state"
)

func newStrategyCmd() *cobra.Command {
	var asJSON, listDry bool
	var dir, configFile string
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
	c.PersistentFlags().StringVarP(&dir, "dir", "C", "", "project `DIR` (default: the nearest folder holding .spcstr/, from the current one up)")

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
			cfg, err := strategyConfig(dir, "")
			if err != nil {
				return err
			}
			list, problems := strategy.List(cfg, dryRunEnv(listDry))
			if asJSON {
				return strategy.WriteListJSON(cmd.OutOrStdout(), list, problems)
			}
			return strategy.WriteList(cmd.OutOrStdout(), list, problems)
		},
	}

	list.Flags().BoolVar(&listDry, "dry-run", false, "list as under SPCSTR_DRY_RUN=1")

	validate := &cobra.Command{
		Use:   "validate [NAME]",
		Short: "Check the strategies configuration (exit 1 on an error)",
		Long: `Runs spcstr doctor's config and strategies checks: config.yaml parses and
every strategy's options are valid (an error names its line and column in
config.yaml). Several strategies blocking at one hook is fine: their
verdicts merge. With NAME, checks that one strategy only (built-in or
command) and says what it is. --config FILE checks that file instead of
the project's .spcstr/config.yaml (a candidate before you install it);
the project (-C) still gives the folder its command strategies run in.

Exit status: 0 when there is no problem, 1 otherwise. --json prints the
same report as spcstr doctor --json (without NAME).`,
		Args:         cobra.MaximumNArgs(1),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := strategyRoot(dir)
			if err != nil {
				return err
			}
			if configFile != "" {
				if fi, err := os.Stat(configFile); err != nil {
					return fmt.Errorf("--config: %w", err)
				} else if !fi.Mode().IsRegular() {
					return fmt.Errorf("--config %s: not a regular file", configFile)
				}
			}
			if len(args) == 1 {
				return validateOne(cmd, dir, configFile, args[0])
			}
			checks := slices.DeleteFunc(doctor.DefaultChecks(), func(c doctor.Check) bool {
				return c.Name != "config" && c.Name != "strategies"
			})
			env := doctor.DefaultEnv(root)
			env.ConfigFile = configFile
			return runDoctorEnv(cmd, env, checks, asJSON)
		},
	}
	validate.Flags().StringVar(&configFile, "config", "", "check this config `FILE` instead of the project's .spcstr/config.yaml")
	c.AddCommand(list, validate, newStrategyDryRunCmd(&asJSON, &dir))
	return c
}

// strategyRoot is the project the strategy commands work on: dir (-C), or
// the nearest folder holding .spcstr/ from the current one up.
func strategyRoot(dir string) (string, error) {
	if dir != "" {
		fi, err := os.Stat(dir)
		if err != nil {
			return "", fmt.Errorf("-C: %w", err)
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("-C %s: not a folder", dir)
		}
		return state.FindRoot(dir, ""), nil
	}
	return projectRoot()
}

// strategyConfig reads the project's config.yaml (or file, when given);
// one that does not parse is an error here (the recorder would fall back
// to the defaults).
func strategyConfig(dir, file string) (*config.Config, error) {
	if file == "" {
		root, err := strategyRoot(dir)
		if err != nil {
			return nil, err
		}
		file = state.Layout{Root: root}.ConfigPath()
	}
	cfg, err := config.Load(file)
	if err != nil {
		return nil, fmt.Errorf("%w (spcstr strategy validate says more)", err)
	}
	return cfg, nil
}

// validateOne checks one strategy of config.yaml (or file): its problems,
// or what it is (description, version, hooks, fail_mode, dry-run,
// stop_block_limit).
func validateOne(cmd *cobra.Command, dir, file, name string) error {
	cfg, err := strategyConfig(dir, file)
	if err != nil {
		return err
	}
	root, err := strategyRoot(dir)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	var problems, warnings []string
	for _, p := range strategy.ValidateIn(cfg, root) {
		switch {
		case !slices.Contains(p.Strategies, name):
		case p.Kind == strategy.ProblemWarning:
			warnings = append(warnings, p.Message)
		default:
			problems = append(problems, p.Message)
		}
	}
	for _, w := range warnings {
		fmt.Fprintf(out, "WARN   %s\n", w)
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintf(out, "ERROR  %s\n", p)
		}
		return fmt.Errorf("strategy %s: %d problem(s)", name, len(problems))
	}
	list, _ := strategy.Load(cfg)
	for _, l := range list {
		if l.Name != name {
			continue
		}
		var hooks []string
		for _, h := range l.Hooks {
			s := h.String()
			if h.Blocks {
				s += "!"
			}
			hooks = append(hooks, s)
		}
		limit := "global"
		if l.StopBlockLimit > 0 {
			limit = fmt.Sprint(l.StopBlockLimit)
		}
		fmt.Fprintf(out, "ok  %s: %s\n    version %s, enabled %t, fail_mode %s, dry_run %t, stop_block_limit %s\n    hooks (! may block): %s\n",
			l.Name, l.Description, l.Version, l.Enabled, l.FailMode, l.DryRun, limit, strings.Join(hooks, " "))
		return nil
	}
	if file == "" {
		file = ".spcstr/config.yaml"
	}
	return fmt.Errorf("no strategy %q in the strategies: section of %s", name, file)
}

// dryRunEnv is os.Getenv, with SPCSTR_DRY_RUN=1 when a --dry-run flag is
// set (the flag does what the variable does).
func dryRunEnv(dry bool) func(string) string {
	if !dry {
		return os.Getenv
	}
	return func(k string) string {
		if k == "SPCSTR_DRY_RUN" {
			return "1"
		}
		return os.Getenv(k)
	}
}
