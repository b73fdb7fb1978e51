package cmd

import (
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/recorder"
	"github.com/dylan-gluck/spcstr/state"
)

func newRebuildCmd() *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "rebuild [SESSION...]",
		Short: "Rebuild sessions' state.json from the project's logs",
		Long: `state.json is a cache of the logs: every event the recorder applied is in
.spcstr/logs. rebuild applies them again and writes the session's
state.json, replacing what is there. With no SESSION it rebuilds every
session of the logs whose state.json is missing (deleted, or set aside as
corrupt); --all rebuilds every session of the logs.

Not rebuilt: gates' bookkeeping (the Stop-block count, one-time notices);
the branch is the current one.`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			humanOutput(cmd, false) // ids and config errors come from files
			root, err := projectRoot()
			if err != nil {
				return err
			}
			layout := state.Layout{Root: root}
			if !layout.Exists() {
				return fmt.Errorf("no %s folder in %s (run spcstr init)", state.DirName, root)
			}
			cfg, err := config.Load(layout.ConfigPath())
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "spcstr rebuild: %v (using defaults)\n", err)
			}
			ids := args
			if len(ids) == 0 {
				seen, err := recorder.SessionEvents(layout)
				if err != nil {
					return err
				}
				for id := range seen {
					if p, err := layout.StatePath(id); err == nil && (all || missing(p)) {
						ids = append(ids, id)
					}
				}
				sort.Strings(ids)
				if len(ids) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "Every session of the logs has its state.json (--all rebuilds them anyway).")
					return nil
				}
			}
			failed := 0
			for _, id := range ids {
				s, err := recorder.RebuildState(cmd.Context(), layout, id, cfg)
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "spcstr rebuild: %s: %v\n", termtext.Cut(id, 80), err)
					failed++
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: rebuilt from %d events (%d prompts, %d agents, %d errors)\n",
					id, eventTotal(s), s.PromptsTotal, s.AgentsTotal, s.ErrorsTotal)
			}
			if failed > 0 {
				return withCode(1, errors.New(""))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "rebuild every session of the logs, not only those without state.json")
	return c
}

func missing(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, os.ErrNotExist)
}

func eventTotal(s *state.Session) int {
	n := 0
	for _, c := range s.EventCounts {
		n += c
	}
	return n
}
