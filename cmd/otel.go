package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/otelship"
	"github.com/dylan-gluck/spcstr/state"
)

// otelFlags are spcstr otel's flags.
type otelFlags struct {
	Dir      string
	Endpoint string
	Follow   bool
	RetryFor time.Duration
}

func newOtelCmd() *cobra.Command {
	var f otelFlags
	c := &cobra.Command{
		Use:   "otel",
		Short: "Ship recorded sessions to OpenTelemetry (OTLP traces, logs, metrics)",
		Long: `Ships this project's recorded sessions to an OTLP/HTTP endpoint (an
OpenTelemetry Collector, or any backend that speaks OTLP):

  traces   one per session: session → prompt turns → tool calls and
           subagents (which parent their own tool calls); gate decisions
           are events on the span of the call they judged
  logs     one record per hook event (event.name spcstr.<event>) and per
           decision (spcstr.gate.decision), with the same ids
  metrics  spcstr.tool.calls, spcstr.gate.decisions, spcstr.token.usage,
           per session and model

Prompt text, tool inputs and tool outputs are sent only with
"otel: {include_content: true}" in .spcstr/config.yaml; file paths are
sent relative to the project.

A cursor (.spcstr/otel-cursor.json) records what the receiver accepted:
a rerun ships only what is new. Trace, span and record ids derive from the
recorded events, so a batch sent twice (after a crash) carries the same ids.
An unreachable endpoint is retried with backoff for --retry-for, then the
run fails and the next one resumes.

The endpoint is --endpoint, else OTEL_EXPORTER_OTLP_ENDPOINT, else
http://localhost:4318. OTEL_EXPORTER_OTLP_HEADERS (e.g. an API key),
OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME are honoured.`,
		Example: `  spcstr otel                                   # ship what is new to localhost:4318
  spcstr otel --follow                          # keep shipping as sessions run
  OTEL_EXPORTER_OTLP_HEADERS="x-api-key=..." spcstr otel --endpoint https://otlp.example.com`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return ship(cmd.Context(), cmd, f)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.Endpoint, "endpoint", "", "OTLP/HTTP base `URL` (default: $OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318)")
	fl.BoolVar(&f.Follow, "follow", false, "keep shipping new events as they are recorded (watches .spcstr/logs)")
	fl.DurationVar(&f.RetryFor, "retry-for", 30*time.Second, "how long to retry an unreachable endpoint before giving up")
	fl.StringVarP(&f.Dir, "dir", "C", "", "project `DIR` (default: the nearest folder holding .spcstr/, from the current one up)")
	return c
}

// ship runs one pass, or follows the logs.
func ship(ctx context.Context, c *cobra.Command, f otelFlags) error {
	root := f.Dir
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		root = state.FindRoot(os.Getenv("CLAUDE_PROJECT_DIR"), wd)
	}
	l := state.Layout{Root: root}
	if !l.Exists() {
		return fmt.Errorf("%s: %w", root, otelship.ErrNoProject)
	}
	cfg, err := otelship.LoadConfig(l)
	if err != nil {
		return err
	}
	opt := otelship.Options{
		Layout: l, Endpoint: otelship.Endpoint(f.Endpoint, os.Getenv), IncludeContent: cfg.IncludeContent,
		RetryFor: f.RetryFor, Version: versionString(), Progress: c.ErrOrStderr(),
	}
	if f.Follow {
		return otelship.Follow(ctx, opt, c.ErrOrStderr())
	}
	st, err := otelship.Ship(ctx, opt)
	if st.Events+st.Decisions > 0 || err == nil {
		fmt.Fprintf(c.OutOrStdout(), "shipped %d events and %d decisions to %s (%d spans, %d log records)\n",
			st.Events, st.Decisions, opt.Endpoint, st.Spans, st.LogRecords)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return errors.New("interrupted; the next run resumes where this one stopped")
		}
		return err
	}
	return nil
}
