package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/dylan-gluck/spcstr/internal/install"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// OtelHelper is the companion binary that does the shipping. The
// OpenTelemetry SDK, protobuf and gRPC live there only: linked into spcstr,
// their package initialisation would run on every hook.
const OtelHelper = "spcstr-otel"

// OtelFlags are spcstr otel's flags.
type OtelFlags struct {
	Dir      string
	Endpoint string
	Follow   bool
	RetryFor time.Duration
}

// OtelRunner does the work of spcstr otel.
type OtelRunner func(ctx context.Context, c *cobra.Command, f OtelFlags) error

// NewOtelCmd builds the otel command around run: spcstr's own tree hands
// the parsed flags to the companion binary, which builds the same command
// around the shipper.
func NewOtelCmd(run OtelRunner) *cobra.Command {
	var f OtelFlags
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
OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME are honoured.

The work is done by the companion binary spcstr-otel, installed next to
spcstr (so that "spcstr hook" never loads the OpenTelemetry SDK).`,
		Example: `  spcstr otel                                   # ship what is new to localhost:4318
  spcstr otel --follow                          # keep shipping as sessions run
  OTEL_EXPORTER_OTLP_HEADERS="x-api-key=..." spcstr otel --endpoint https://otlp.example.com`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), cmd, f)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.Endpoint, "endpoint", "", "OTLP/HTTP base `URL` (default: $OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318)")
	fl.BoolVar(&f.Follow, "follow", false, "keep shipping new events as they are recorded (watches .spcstr/logs)")
	fl.DurationVar(&f.RetryFor, "retry-for", 30*time.Second, "how long to retry an unreachable endpoint before giving up")
	fl.StringVarP(&f.Dir, "dir", "C", "", "project `DIR` (default: the nearest folder holding .spcstr/, from the current one up)")
	return c
}

func newOtelCmd() *cobra.Command { return NewOtelCmd(runOtelHelper) }

// runOtelHelper runs the companion binary with the flags given.
func runOtelHelper(ctx context.Context, c *cobra.Command, _ OtelFlags) error {
	helper, err := findHelper(OtelHelper, "spcstr otel", "the OpenTelemetry SDK")
	if err != nil {
		return err
	}
	var args []string
	c.Flags().Visit(func(fl *pflag.Flag) {
		args = append(args, "--"+fl.Name+"="+fl.Value.String())
	})
	return runHelper(ctx, helper, args, c)
}

// findHelper looks for the companion binary name next to the running
// spcstr, then on PATH. command and what say, in the error, who needs it
// and what it keeps out of spcstr.
func findHelper(name, command, what string) (string, error) {
	exe, _ := os.Executable()
	if p, ok := install.FindCompanion(name, exe, lookPath); ok {
		return p, nil
	}
	return "", withCode(2, fmt.Errorf(
		"%s needs its companion binary %s (kept apart so that spcstr hook never loads %s), "+
			"next to spcstr or on PATH: it comes in the release archive, or run "+
			"go install github.com/dylan-gluck/spcstr/cmd/%s@latest", command, name, what, name))
}

var lookPath = exec.LookPath

// runChild runs the helper as a child process and passes on its exit
// status.
func runChild(ctx context.Context, helper string, args []string, c *cobra.Command) error {
	p := exec.CommandContext(ctx, helper, args...)
	p.Stdin, p.Stdout, p.Stderr = c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr()
	if err := p.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return withCode(ee.ExitCode(), errors.New(""))
		}
		return fmt.Errorf("run %s: %w", helper, err)
	}
	return nil
}

// Version describes this build, for the companion binary (whose release
// build sets the same -ldflags).
func Version() string { return versionString() }
