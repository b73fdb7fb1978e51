// Package otelship ships a project's recorded sessions to an
// OpenTelemetry endpoint over OTLP (HTTP/protobuf), with the official
// OpenTelemetry Go SDK and exporters: a trace per session (session → prompt
// turns → tool calls and subagents, gate decisions as span events), a log
// record per hook event and decision, and metrics for tool calls, decisions
// and tokens. Ids are derived from the recorded events, so shipping twice
// sends the same ids; a cursor (package otelcursor) records what the
// receiver has accepted, so a rerun ships only what is new.
//
// This package links the OpenTelemetry SDK, protobuf and gRPC: it is built
// into spcstr only, never into spcstr-hook (cmd/spcstr-hook's tests guard it).
package otelship

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/otelcursor"
	"github.com/dylan-gluck/spcstr/state"
)

// DefaultEndpoint is the OTLP/HTTP endpoint used when neither --endpoint
// nor OTEL_EXPORTER_OTLP_ENDPOINT says otherwise.
const DefaultEndpoint = "http://localhost:4318"

// DefaultRetryFor is how long one batch is retried (with exponential
// backoff) before a run gives up.
const DefaultRetryFor = 30 * time.Second

// DefaultBatch is how many log entries one export round carries at most.
const DefaultBatch = 4096

// Options configure a run.
type Options struct {
	Layout state.Layout
	// Endpoint is the OTLP/HTTP base URL (signal paths /v1/traces, … are
	// appended). Empty: build the signals but send nothing (tests).
	Endpoint string
	// IncludeContent sends prompt text, tool inputs and outputs.
	IncludeContent bool
	// RetryFor bounds the retries of one batch (default DefaultRetryFor).
	RetryFor time.Duration
	// Settle leaves entries younger than this for the next pass, so that
	// the decisions written right after an event are read with it.
	Settle time.Duration
	// Batch is the number of entries per export round (default DefaultBatch).
	Batch int
	// PassEntries bounds the entries read into memory at once (default
	// 20,000); a larger backlog is shipped in several passes.
	PassEntries int
	// Version is spcstr's version (service.version).
	Version string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Progress receives notes (a corrupt cursor set aside); nil: none.
	Progress io.Writer
}

// Stats count what a run shipped.
type Stats struct {
	Events     int // hook events read
	Decisions  int // gate decisions read
	Spans      int
	LogRecords int
}

func (s *Stats) add(o Stats) {
	s.Events += o.Events
	s.Decisions += o.Decisions
	s.Spans += o.Spans
	s.LogRecords += o.LogRecords
}

// Endpoint picks the endpoint: the flag's value, else
// OTEL_EXPORTER_OTLP_ENDPOINT, else DefaultEndpoint.
func Endpoint(flag string, getenv func(string) string) string {
	if flag != "" {
		return flag
	}
	if e := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")); e != "" {
		return e
	}
	return DefaultEndpoint
}

// Config is the otel section of .spcstr/config.yaml.
type Config struct {
	// IncludeContent sends prompt text, tool inputs and tool outputs
	// (default false: only names, ids, times and outcomes).
	IncludeContent bool `yaml:"include_content"`
}

// LoadConfig reads the otel section of the project's config.yaml.
func LoadConfig(l state.Layout) (Config, error) {
	var c Config
	cfg, err := config.Load(l.ConfigPath())
	if err != nil {
		return c, err
	}
	if err := cfg.Section("otel", &c); err != nil {
		return c, err
	}
	return c, nil
}

// ErrNoProject reports a folder without .spcstr/.
var ErrNoProject = errors.New("no .spcstr/ folder here: run spcstr init, or pass --dir")

// Ship sends everything new in the project's logs and moves the cursor
// after each batch the receiver accepted. On an error, what was accepted
// stays shipped and the rest is sent by the next run.
func Ship(ctx context.Context, opt Options) (Stats, error) {
	o := &opt
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	if o.PassEntries <= 0 {
		o.PassEntries = defaultPassEntries
	}
	if !o.Layout.Exists() {
		return Stats{}, ErrNoProject
	}
	cur, err := otelcursor.Load(o.Layout)
	if err != nil {
		if !errors.Is(err, otelcursor.ErrCorrupt) {
			return Stats{}, err
		}
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "spcstr otel: %v; shipping from the start (ids are deterministic: the receiver sees the same records again)\n", err)
		}
	}
	var cutoff time.Time
	if o.Settle > 0 {
		cutoff = o.Now().Add(-o.Settle)
	}
	x := &shipper{ctx: ctx, opt: o, cur: cur, states: map[string]*state.Session{}}
	for {
		d, err := readDelta(o.Layout, cur, cutoff, o.PassEntries, o.IncludeContent)
		if err != nil {
			return x.stats, err
		}
		if len(d.order) == 0 {
			return x.stats, nil
		}
		if x.p == nil {
			x.p, err = newPipeline(ctx, o, x.registerMetrics)
			if err != nil {
				return x.stats, err
			}
			// The cursor records only what the receiver accepted, so an
			// error here loses nothing a rerun would not send again.
			defer func() { _ = x.p.shutdown(context.WithoutCancel(ctx)) }()
		}
		if err := x.pass(d); err != nil {
			return x.stats, err
		}
		if !d.more {
			return x.stats, nil
		}
	}
}

// defaultPassEntries bounds the entries one pass holds in memory.
const defaultPassEntries = 20000

// pass ships one delta, batch by batch, moving the cursor after each.
func (x *shipper) pass(d *delta) error {
	o, cur := x.opt, x.cur
	x.d, x.touched, x.decSpan = d, map[string]bool{}, map[decKey]traceSpanID{}
	for start := 0; start < len(d.order); start += o.Batch {
		chunk := d.order[start:min(start+o.Batch, len(d.order))]
		before := x.stats
		for _, it := range chunk {
			x.process(it)
		}
		if err := x.p.export(x.ctx); err != nil {
			x.stats = before
			return fmt.Errorf("%s: %w (%d entries of this pass not shipped; the next run resumes there)", o.Endpoint, err, len(d.order)-start)
		}
		x.touched = map[string]bool{}
		for _, it := range chunk {
			f := d.files[it.file]
			cur.Files[f.name] = &otelcursor.File{ID: f.id, Offset: it.end}
		}
		x.forgetRenamed()
		cur.Endpoint = o.Endpoint
		if err := cur.Save(o.Layout, o.Now()); err != nil {
			return err
		}
	}
	return nil
}

// forgetRenamed drops cursor entries of files that no longer exist under
// their name (a rotated log's entry moves to its new name).
func (x *shipper) forgetRenamed() {
	for name := range x.cur.Files {
		if _, err := os.Lstat(x.opt.Layout.LogPath(strings.TrimSuffix(name, ".json"))); err != nil {
			delete(x.cur.Files, name)
		}
	}
}

// registerMetrics declares the metrics; their callbacks report the
// cumulative counts of the sessions touched by the current batch (a
// cumulative sum sent twice is the same point: re-sending is harmless).
func (x *shipper) registerMetrics(p *pipeline) error {
	m := p.mp.Meter(scope)
	tools, err := m.Int64ObservableCounter("spcstr.tool.calls", metric.WithDescription("Tool calls, by tool and outcome (success, failure, denied)"), metric.WithUnit("{call}"))
	if err != nil {
		return err
	}
	decs, err := m.Int64ObservableCounter("spcstr.gate.decisions", metric.WithDescription("Gate and strategy decisions, by source and outcome"), metric.WithUnit("{decision}"))
	if err != nil {
		return err
	}
	tokens, err := m.Int64ObservableCounter("spcstr.token.usage", metric.WithDescription("Tokens used, by type (input, output, cacheRead, cacheCreation)"), metric.WithUnit("{token}"))
	if err != nil {
		return err
	}
	_, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		x.observe(o, tools, decs, tokens)
		return nil
	}, tools, decs, tokens)
	return err
}
