package cmd

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/recorder"
	"github.com/dylan-gluck/spcstr/state"
)

func newStrategyDryRunCmd(asJSON *bool, dir *string) *cobra.Command {
	var session, transcriptFile, only string
	var runCommands bool
	c := &cobra.Command{
		Use:   "dry-run (--session ID | --transcript FILE) [--strategy NAME] [--run-commands]",
		Short: "Replay a session through the strategies and print every decision",
		Long: `Replays a recorded session (--session: its events in .spcstr/logs; a unique
prefix of the id is enough) or a Claude Code transcript (--transcript: a
JSONL file, read as the hook events it implies: prompts, tool calls, stops,
compactions) through the strategies of .spcstr/config.yaml, as the recorder
would run them, and prints every decision they would take.

It writes nothing under .spcstr/ and acts on nothing: the strategies keep
their state in a scratch folder, and run no notify or advisor command. They
see the project's files and git as they are now. Only the strategies run
(not requirements or the feedback loop); --strategy NAME replays that one
alone. It runs no command the project's configuration defines: a command
strategy says what it would ask (its command and the hook) and allows.
--run-commands runs them, with SPCSTR_REPLAY=1 in their environment and the
recorded payload on stdin: only spcstr's hooks, which Claude Code runs in a
folder you trusted, run a project's commands unasked (docs/security.md).

--json prints {"session_id", "source", "events", "strategies",
"steps": [{"index", "at", "event", "tool", "decisions": [decision records
as in decisions.json], "failures"}]}.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (session == "") == (transcriptFile == "") {
				return errors.New("give one of --session ID or --transcript FILE")
			}
			cfg, err := strategyConfig(*dir, "")
			if err != nil {
				return err
			}
			root, err := strategyRoot(*dir)
			if err != nil {
				return err
			}
			layout := state.Layout{Root: root}
			if session != "" {
				if session, err = resolveSession(layout, session); err != nil {
					return err
				}
			}
			rep, err := recorder.DryRun(cmd.Context(), recorder.DryRunOptions{
				Layout: layout, Config: cfg, SessionID: session, Transcript: transcriptFile, Strategy: only,
				RunCommands: runCommands})
			if err != nil {
				return err
			}
			if *asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	c.Flags().StringVar(&session, "session", "", "a recorded session's id (or a unique prefix)")
	c.Flags().StringVar(&transcriptFile, "transcript", "", "a Claude Code transcript (JSONL)")
	c.Flags().StringVar(&only, "strategy", "", "replay only this strategy")
	c.Flags().BoolVar(&runCommands, "run-commands", false, "run the command strategies' commands (the project's own programs)")
	return c
}

// resolveSession finds the session of the logs whose id is id or starts
// with it.
func resolveSession(layout state.Layout, id string) (string, error) {
	events, err := recorder.SessionEvents(layout)
	if err != nil {
		return "", err
	}
	ids := slices.Sorted(maps.Keys(events))
	return state.FindSessionID(ids, id, layout.LogsDir())
}
