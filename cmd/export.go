package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/export"
	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/recorder"
	"github.com/dylan-gluck/spcstr/state"
)

func newExportCmd() *cobra.Command {
	var (
		format, output, dir string
		latest, all         bool
	)
	c := &cobra.Command{
		Use:   "export [SESSION_ID]",
		Short: "Write a session summary as Markdown or JSON",
		Long: `Summarises a recorded session: header (project, branch, times, status,
model, tokens), prompts, agents as a tree with durations and results, files
new/edited/read, tool counts, errors, notifications, requirement status,
the feedback loop's history, and every gate and strategy decision with a
timeline.

SESSION_ID may be a unique prefix of an id. Without it the newest session
is exported (--latest); --all exports every session, newest first.
The JSON form's schema is "` + export.Schema + `" (see export/SCHEMA.md).`,
		Example: `  spcstr export                      # newest session, Markdown, to stdout
  spcstr export 61d1bf36 -o s.md     # by id prefix, to a file
  spcstr export --all --format json | jq '.sessions[].totals'`,
		Args:         cobra.MaximumNArgs(1),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			sel := export.Selector{All: all}
			if len(args) == 1 {
				sel.ID = args[0]
			}
			switch {
			case sel.ID != "" && (latest || all):
				return errors.New("give a SESSION_ID or --latest or --all, not several")
			case latest && all:
				return errors.New("--latest and --all exclude each other")
			}
			if _, err := export.ParseFormat(format); err != nil {
				return err
			}
			root := dir
			if root == "" {
				wd, err := os.Getwd()
				if err != nil {
					return err
				}
				root = state.FindRoot(os.Getenv("CLAUDE_PROJECT_DIR"), wd)
			}
			home, _ := os.UserHomeDir()
			opt := export.Options{Sources: export.DomainSources(), Home: home, Generator: versionString(), History: exportHistory}
			var buf bytes.Buffer
			err := export.Export(cmd.Context(), &buf, state.Layout{Root: root}, sel, format, opt)
			if buf.Len() > 0 {
				// The session's text is untrusted (prompts, tool output):
				// JSON has its C1 controls escaped (it decodes the same);
				// Markdown on a terminal has every escape sequence and
				// control stripped.
				data := buf.Bytes()
				if f, _ := export.ParseFormat(format); f == export.FormatJSON {
					data = termtext.EscapeJSON(data)
				} else if output == "" || output == "-" {
					data = []byte(termtext.Strip(string(data)))
				}
				if output != "" && output != "-" {
					if werr := jsonfile.Write(output, data); werr != nil {
						return fmt.Errorf("export: %w", werr)
					}
				} else if _, werr := cmd.OutOrStdout().Write(data); werr != nil {
					return werr
				}
			}
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVarP(&format, "format", "f", export.FormatMarkdown, "output format: markdown or json")
	f.StringVarP(&output, "output", "o", "", "write to `FILE` (atomically) instead of stdout")
	f.BoolVar(&latest, "latest", false, "export the newest session (the default without SESSION_ID)")
	f.BoolVar(&all, "all", false, "export every session, newest first")
	f.StringVarP(&dir, "dir", "C", "", "project `DIR` (default: the nearest folder holding .spcstr/, from the current one up)")
	return c
}

// exportHistory gives the export a long session's complete lists, replayed
// from the logs (state.json keeps only the latest entries).
func exportHistory(ctx context.Context, l state.Layout, id string) (*state.Session, error) {
	cfg, _ := config.Load(l.ConfigPath())
	return recorder.History(ctx, l, id, cfg)
}
