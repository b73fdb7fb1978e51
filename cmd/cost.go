package cmd

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/internal/strategy"
	"github.com/dylan-gluck/spcstr/state"
)

func newCostCmd() *cobra.Command {
	var session string
	c := &cobra.Command{
		Use:   "cost",
		Short: "The cost-budget strategy's way out (docs/cost.md)",
		Args:  cobra.NoArgs,
	}
	c.PersistentFlags().StringVar(&session, "session", "", "session id or a unique prefix (default: $CLAUDE_CODE_SESSION_ID, else the newest live session)")
	lift := &cobra.Command{
		Use:   "lift",
		Short: "Lift cost-budget's cap for a session: its spawns and Stop are no longer gated on dollars",
		Long: `Lifts the cap of the cost-budget strategy for one session: it no longer
denies agent spawns or blocks Stop over the session's or the day's dollars
(its warnings go on). The session is --session ID (an id or a unique
prefix), else $CLAUDE_CODE_SESSION_ID, else this project's newest live
session. Nothing the strategy gates stops this command from running.

The way out is yours, not Claude's: it refuses to run inside Claude Code
(CLAUDECODE set, as Claude Code sets it for its tools' shells); run it in
your own terminal.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if os.Getenv("CLAUDECODE") != "" {
				return withCode(2, errors.New("cost lift does not run inside Claude Code (CLAUDECODE is set): the cap is yours to lift; run spcstr cost lift in your own terminal"))
			}
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			layout := state.Layout{Root: state.FindRoot(os.Getenv("CLAUDE_PROJECT_DIR"), cwd)}
			sid, _, err := requirements.ResolveSession(layout.Root, session, os.Getenv, registry.Alive)
			if err != nil {
				return withCode(2, fmt.Errorf("which session: %w (give --session ID)", err))
			}
			if sid, err = layout.FindSession(sid); err != nil {
				return withCode(2, err)
			}
			_, err = layout.Update(cmd.Context(), sid, time.Now(), state.UpdateOptions{Lazy: state.AllSections}, func(s *state.Session, created bool) error {
				if created {
					return errors.New("no such session")
				}
				s.Note(strategy.CostLiftNote)
				return nil
			})
			if err != nil {
				return fmt.Errorf("session %s: %w", registry.ShortID(sid), err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "cost-budget: cap lifted for session %s\n", registry.ShortID(sid))
			return nil
		},
	}
	c.AddCommand(lift)
	addCostReport(c)
	return c
}
