package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/costreport"
	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/internal/projects"
	"github.com/dylan-gluck/spcstr/internal/termtext"
)

// addCostReport makes `spcstr cost` itself the report over every recorded
// project (`spcstr cost lift` stays its subcommand).
func addCostReport(c *cobra.Command) {
	var by, since, until string
	var asJSON bool
	c.Short = "What your sessions cost, over every recorded project, by day, week, month, project, model or 5-hour block"
	c.Long = `Reports what the recorded sessions of every project spcstr knows (spcstr
tui --all lists the same) cost, grouped --by day (the default), week, month,
project, model or block (5-hour blocks, as Claude's usage windows run).

Each session adds what it spent itself: Claude Code's figure (its live one
while it runs, its final one after) or spcstr's estimate, less what a fork
inherited from its parent, so a fork's shared history counts once and the
total equals the sum of usd − inherited_usd in spcstr export --all. A "≥"
marks a total with a model no price table knows (the priced part), "~" one
with an estimate in it. Days, weeks and months are cut in local time by
each session's last event; --since and --until (YYYY-MM-DD, until
exclusive) bound them. --json prints the report with a top-level total_usd.

"spcstr cost lift" lifts the cost-budget strategy's cap (docs/cost.md).`
	c.Args = cobra.NoArgs
	c.SilenceUsage = true
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		opt := costreport.Options{By: by}
		var err error
		if opt.Since, err = day(since); err != nil {
			return withCode(2, fmt.Errorf("--since: %w", err))
		}
		if opt.Until, err = day(until); err != nil {
			return withCode(2, fmt.Errorf("--until: %w", err))
		}
		var roots []string
		for _, p := range projects.Load(projects.Path(os.Getenv)) {
			roots = append(roots, p.Path)
		}
		r, err := costreport.Build(roots, opt)
		if err != nil {
			return withCode(2, err)
		}
		out := cmd.OutOrStdout()
		if asJSON {
			enc := json.NewEncoder(out)
			enc.SetIndent("", "  ")
			return enc.Encode(r)
		}
		mark := ""
		switch {
		case r.LowerBound:
			mark = "≥"
		case r.Estimate:
			mark = "~"
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\tsessions\tcost\t\n", by)
		for _, g := range r.Groups {
			fmt.Fprintf(tw, "%s\t%d\t%s\t\n", termtext.Line(g.Key), g.Sessions, money(g.USD))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s%s\t\n", "total", r.Sessions, mark, money(r.TotalUSD))
		if err := tw.Flush(); err != nil {
			return err
		}
		if r.Unreadable > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "spcstr cost: %d session states could not be read (not counted)\n", r.Unreadable)
		}
		return nil
	}
	c.Flags().StringVar(&by, "by", costreport.ByDay, "group by "+strings.Join(costreport.Groupings, ", "))
	c.Flags().StringVar(&since, "since", "", "only sessions whose last event is on or after this day (YYYY-MM-DD, local time)")
	c.Flags().StringVar(&until, "until", "", "only sessions whose last event is before this day (YYYY-MM-DD, local time)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON (with a top-level total_usd)")
}

// money is an amount for the report: "$0.00" for nothing at all.
func money(usd float64) string {
	if usd == 0 {
		return "$0.00"
	}
	return pricing.Format(usd)
}

// day parses YYYY-MM-DD as the start of that day, local time ("" is zero).
func day(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.ParseInLocation(time.DateOnly, s, time.Local)
}
