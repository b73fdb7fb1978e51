// Command spcstr-otel is the companion binary behind "spcstr otel": it
// ships a project's recorded sessions over OTLP. It is a binary of its own
// so that the OpenTelemetry SDK, protobuf and gRPC are never linked into
// spcstr, whose hook runs on every tool call.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/cmd"
	"github.com/dylan-gluck/spcstr/internal/otelship"
	"github.com/dylan-gluck/spcstr/state"
)

func main() {
	os.Exit(cmd.RunCompanion(cmd.NewOtelCmd(ship), cmd.OtelHelper, "spcstr otel"))
}

// ship runs one pass, or follows the logs.
func ship(ctx context.Context, c *cobra.Command, f cmd.OtelFlags) error {
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
		RetryFor: f.RetryFor, Version: cmd.Version(), Progress: c.ErrOrStderr(),
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
