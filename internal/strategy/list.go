package strategy

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/dylan-gluck/spcstr/internal/config"
)

// Listed is one configured strategy as `spcstr strategy list` shows it.
type Listed struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Version is the strategy's version (Loaded.Version).
	Version  string `json:"version"`
	Enabled  bool   `json:"enabled"`
	FailMode string `json:"fail_mode"`
	// DryRun says whether and why its decisions are not enforced: "" (they
	// are), "strategy" (its own dry_run), "global" (dry_run at the top of
	// config.yaml, or SPCSTR_DRY_RUN=1).
	DryRun string `json:"dry_run,omitempty"`
	// Hooks are the hooks it uses; blocking ones end in "!".
	Hooks []string `json:"hooks"`
}

// FirstVersion is the version of a built-in strategy whose behaviour has
// not changed since strategies were versioned.
const FirstVersion = "1.0.0"

// versions holds the built-in strategies whose behaviour (their decisions
// or the text they inject) changed since then. A change bumps the
// strategy's entry here and says what changed in
// docs/feedback-and-strategies.md.
var versions = map[string]string{
	NameLongRunning: "1.1.0", // the context after compaction carries "Session #N"
}

// Version returns the version of the built-in strategy name.
func Version(name string) string {
	if v, ok := versions[name]; ok {
		return v
	}
	return FirstVersion
}

// List describes every strategy config.yaml lists, disabled ones included,
// in file order, with the problems Validate reports (a strategy whose
// section has a config problem is not listed). getenv reads
// SPCSTR_DRY_RUN (nil: not set).
func List(cfg *config.Config, getenv func(string) string) ([]Listed, []Problem) {
	loaded, problems := Load(cfg)
	global := cfg != nil && cfg.DryRun || getenv != nil && getenv("SPCSTR_DRY_RUN") == "1"
	out := make([]Listed, 0, len(loaded))
	for _, l := range loaded {
		e := Listed{Name: l.Name, Description: l.Description, Version: l.Version, Enabled: l.Enabled, FailMode: l.FailMode, Hooks: []string{}}
		switch {
		case l.DryRun:
			e.DryRun = "strategy"
		case global:
			e.DryRun = "global"
		}
		for _, h := range l.Hooks {
			s := h.String()
			if h.Blocks {
				s += "!"
			}
			e.Hooks = append(e.Hooks, s)
		}
		out = append(out, e)
	}
	return out, problems
}

// WriteList prints List's result as a table, then one line per problem.
func WriteList(w io.Writer, list []Listed, problems []Problem) error {
	if len(list) == 0 && len(problems) == 0 {
		_, err := fmt.Fprintln(w, "No strategies configured (the strategies: section of .spcstr/config.yaml).")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tENABLED\tFAIL_MODE\tDRY_RUN\tHOOKS (! may block)")
	for _, l := range list {
		dry := "no"
		if l.DryRun != "" {
			dry = "yes (" + l.DryRun + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", l.Name, yesNo(l.Enabled), l.FailMode, dry, strings.Join(l.Hooks, " "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(problems) > 0 {
		fmt.Fprintf(w, "\n%d problem(s); `spcstr strategy validate` explains them:\n", len(problems))
		for _, p := range problems {
			fmt.Fprintln(w, "  "+p.Message)
		}
	}
	return nil
}

// WriteListJSON prints List's result as one JSON object:
// {"strategies": [Listed...], "problems": ["message"...]}.
func WriteListJSON(w io.Writer, list []Listed, problems []Problem) error {
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Message
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Strategies []Listed `json:"strategies"`
		Problems   []string `json:"problems"`
	}{list, msgs})
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
