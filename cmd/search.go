package cmd

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/search"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/state"
)

func newSearchCmd() *cobra.Command {
	var (
		q      search.Query
		dir    string
		asJSON bool
	)
	c := &cobra.Command{
		Use:   "search TEXT",
		Short: "Find sessions by prompt text, file path, command or error",
		Long: `Searches every event log of the project for TEXT in the payloads' text:
prompts, commands, file paths, tool output, errors, messages. Matches are
printed as they are found, one a line: the session id, the time (UTC),
the event, the field that matched and the text around the match, on one
line and without terminal controls.

TEXT in lower case matches in any case; with an upper-case letter it
matches case exactly (or always, with --case-sensitive). It exits 1 when
nothing matches.`,
		Example: `  spcstr search healthz                   # every mention, any case
  spcstr search "go test" --session 61d1   # in one session (id prefix)
  spcstr search src/auth --limit 5 --json | jq .session_id
  spcstr search "TestLogin" --sessions     # which sessions, one line each`,
		Args:         cobra.ExactArgs(1),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			q.Text = args[0]
			if strings.TrimSpace(q.Text) == "" {
				return errors.New("give the TEXT to search for")
			}
			if q.Limit < 0 {
				return fmt.Errorf("--limit must be 0 (no limit) or more, not %d", q.Limit)
			}
			root := dir
			if root == "" {
				wd, err := os.Getwd()
				if err != nil {
					return fmt.Errorf("current directory: %w", err)
				}
				root = state.FindRoot(os.Getenv("CLAUDE_PROJECT_DIR"), wd)
			}
			l := state.Layout{Root: root}
			if !l.Exists() {
				return fmt.Errorf("no .spcstr/ in %s: nothing is recorded here (run spcstr init)", termtext.Line(root))
			}
			out := bufio.NewWriter(cmd.OutOrStdout())
			enc := json.NewEncoder(out)
			st, err := search.Run(cmd.Context(), l, q, func(m search.Match) error {
				if asJSON {
					if err := enc.Encode(m); err != nil {
						return err
					}
				} else {
					field := m.Field
					if field == "" {
						field = "-"
					}
					fmt.Fprintf(out, "%s  %s  %s  %s: %s\n", m.SessionID, m.Timestamp.UTC().Format("2006-01-02 15:04:05"), m.Event, field, m.Snippet)
				}
				return out.Flush() // print each match as it is found
			})
			if err != nil {
				return err
			}
			if st.Matches == 0 {
				return withCode(1, fmt.Errorf("no match for %q in %d logs", termtext.Line(q.Text), st.Files))
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVarP(&q.Session, "session", "s", "", "only the session whose id starts with `ID`")
	f.IntVarP(&q.Limit, "limit", "n", 0, "stop after `N` matches (0: all)")
	f.BoolVar(&asJSON, "json", false, "one JSON object a line: session_id, timestamp, event, field, snippet")
	f.BoolVar(&q.CaseSensitive, "case-sensitive", false, "match case exactly, also for lower-case TEXT")
	f.BoolVarP(&q.PerSession, "sessions", "l", false, "only each session's first match (--limit then counts sessions)")
	f.StringVarP(&dir, "dir", "C", "", "project `DIR` (default: the nearest folder holding .spcstr/, from the current one up)")
	return c
}
