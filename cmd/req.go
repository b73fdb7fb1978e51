package cmd

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/state"
)

type reqFlags struct {
	session string
	json    bool
	branch  bool
	all     bool
}

func newReqCmd() *cobra.Command {
	var fl reqFlags
	c := &cobra.Command{
		Use:   "req",
		Short: "Show, satisfy and clear requirements (the requirements framework)",
		Long: `Requirements guard tool calls until something satisfies them (a skill, or
you): they are configured in ~/.claude/requirements.yaml,
.claude/requirements.yaml and .claude/requirements.local.yaml, and their state
lives in <git common dir>/requirements/<branch>.json, shared with the Python
requirements framework.

The session is --session ID (a full id or its 8-character key), else
$CLAUDE_CODE_SESSION_ID, else $CLAUDE_SESSION_ID, else this project's newest
live session (with several live, status and satisfy/clear name the others).`,
		SilenceUsage: true,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			humanOutput(cmd, fl.json)
		},
	}
	c.PersistentFlags().StringVar(&fl.session, "session", "", "session id (default: $CLAUDE_CODE_SESSION_ID, else $CLAUDE_SESSION_ID, else the newest live session)")
	c.PersistentFlags().BoolVar(&fl.json, "json", false, "print JSON")

	status := &cobra.Command{
		Use:   "status",
		Short: "Show each requirement's state for the session",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, sid, how, err := openReq(cmd, &fl, false)
			if err != nil {
				return err
			}
			rep, err := p.Report(sid)
			if err != nil {
				return err
			}
			if fl.json {
				return requirements.WriteJSON(cmd.OutOrStdout(), rep)
			}
			rep.WriteText(cmd.OutOrStdout(), how)
			return nil
		},
	}
	satisfy := &cobra.Command{
		Use:   "satisfy NAME...",
		Short: "Mark requirements satisfied for the session (or, with --branch, the branch)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return changeReq(cmd, &fl, "satisfy", args)
		},
	}
	satisfy.Flags().BoolVar(&fl.branch, "branch", false, "satisfy for every session of the branch")
	clear := &cobra.Command{
		Use:   "clear [NAME... | --all]",
		Short: "Make requirements unsatisfied again for the session (with --branch, also the branch-level satisfaction)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if fl.all == (len(args) > 0) {
				return withCode(2, errors.New("give requirement names or --all"))
			}
			return changeReq(cmd, &fl, "clear", args)
		},
	}
	clear.Flags().BoolVar(&fl.branch, "branch", false, "also clear the branch-level satisfaction")
	clear.Flags().BoolVar(&fl.all, "all", false, "clear every requirement")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the configured requirements",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, _, _, err := openReq(cmd, &fl, true)
			if err != nil {
				return err
			}
			l := p.Config.List()
			if fl.json {
				return requirements.WriteJSON(cmd.OutOrStdout(), l)
			}
			l.WriteText(cmd.OutOrStdout())
			return nil
		},
	}
	c.AddCommand(status, satisfy, clear, list)
	return c
}

// openReq loads the project of the current directory and, unless
// noSession, resolves the session (leaving it empty when none is found).
func openReq(cmd *cobra.Command, fl *reqFlags, noSession bool) (*requirements.Project, string, string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, "", "", err
	}
	root := state.FindRoot(os.Getenv("CLAUDE_PROJECT_DIR"), cwd)
	p, err := requirements.Open(root, os.Getenv)
	if err != nil {
		return nil, "", "", err
	}
	for _, w := range p.Config.Warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
	}
	if noSession {
		return p, "", "", nil
	}
	sid, how, err := requirements.ResolveSession(root, fl.session, os.Getenv, registry.Alive)
	if err != nil && !errors.Is(err, requirements.ErrNoSession) {
		return nil, "", "", err
	}
	return p, sid, how, nil
}

func changeReq(cmd *cobra.Command, fl *reqFlags, action string, names []string) error {
	p, sid, how, err := openReq(cmd, fl, false)
	if err != nil {
		return err
	}
	if sid != "" && !strings.HasPrefix(how, "$") && how != "--session" {
		// Picked, not given: say which session, and how to pick another.
		fmt.Fprintf(cmd.ErrOrStderr(), "session %s (%s)\n", registry.ShortID(sid), how)
	}
	var st []requirements.Status
	var notice string
	switch {
	case action == "satisfy":
		st, notice, err = p.Satisfy(cmd.Context(), sid, names, fl.branch)
	case fl.all:
		st, notice, err = p.ClearAll(cmd.Context(), sid, fl.branch)
	default:
		st, notice, err = p.Clear(cmd.Context(), sid, names, fl.branch)
	}
	if notice != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", notice)
	}
	if err != nil {
		return err
	}
	rep := &requirements.ChangeReport{Action: action, Session: registry.ShortID(sid), Branch: p.Loc.Branch, BranchLevel: fl.branch, Requirements: st}
	if rep.Requirements == nil {
		rep.Requirements = []requirements.Status{}
	}
	if fl.json {
		return requirements.WriteJSON(cmd.OutOrStdout(), rep)
	}
	rep.WriteText(cmd.OutOrStdout())
	return nil
}
