package otelship

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// pipeline holds the OpenTelemetry SDK's providers and the OTLP exporters.
// Spans and log records are gathered by the sinks below and exported by
// the shipper itself, batch by batch, so that it knows exactly when the
// receiver has accepted a batch and may move the cursor.
type pipeline struct {
	tp     *sdktrace.TracerProvider
	lp     *sdklog.LoggerProvider
	mp     *sdkmetric.MeterProvider
	tracer trace.Tracer
	logger log.Logger
	reader *sdkmetric.ManualReader
	spans  *spanSink
	logs   *logSink
	// Exporters; nil in tests that only look at what was built.
	traceExp  sdktrace.SpanExporter
	logExp    sdklog.Exporter
	metricExp sdkmetric.Exporter
	// retryFor bounds the retries of one export.
	retryFor time.Duration
}

// scope is the instrumentation scope of everything spcstr ships.
const scope = "github.com/dylan-gluck/spcstr/otel"

func newPipeline(ctx context.Context, opt *Options, metrics func(*pipeline) error) (*pipeline, error) {
	res, err := resource.New(ctx,
		resource.WithAttributes(
			attribute.String("service.name", "spcstr"),
			attribute.String("service.version", opt.Version),
		),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(), // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME win
	)
	if err != nil && res == nil {
		return nil, fmt.Errorf("resource: %w", err)
	}
	p := &pipeline{spans: &spanSink{}, logs: &logSink{}, reader: sdkmetric.NewManualReader()}
	p.tp = sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(fixedIDs{}),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithSpanProcessor(p.spans),
		sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{
			AttributeValueLengthLimit: -1, AttributeCountLimit: 128,
			EventCountLimit: 1024, LinkCountLimit: 0,
			AttributePerEventCountLimit: 32, AttributePerLinkCountLimit: 0,
		}),
	)
	p.lp = sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(p.logs))
	p.mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(p.reader))
	p.tracer = p.tp.Tracer(scope, trace.WithInstrumentationVersion(opt.Version))
	p.logger = p.lp.Logger(scope, log.WithInstrumentationVersion(opt.Version))
	if metrics != nil {
		if err := metrics(p); err != nil {
			return nil, err
		}
	}
	if opt.Endpoint == "" {
		return p, nil // build only (tests)
	}
	base := strings.TrimRight(opt.Endpoint, "/")
	p.retryFor = opt.RetryFor
	if p.retryFor <= 0 {
		p.retryFor = DefaultRetryFor
	}
	timeout := min(p.retryFor, 30*time.Second)
	p.traceExp, err = otlptracehttp.New(ctx,
		otlptracehttp.WithEndpointURL(base+"/v1/traces"),
		otlptracehttp.WithTimeout(timeout),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	if err != nil {
		return nil, fmt.Errorf("trace exporter: %w", err)
	}
	p.logExp, err = otlploghttp.New(ctx,
		otlploghttp.WithEndpointURL(base+"/v1/logs"),
		otlploghttp.WithTimeout(timeout),
		otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false}))
	if err != nil {
		return nil, fmt.Errorf("log exporter: %w", err)
	}
	p.metricExp, err = otlpmetrichttp.New(ctx,
		otlpmetrichttp.WithEndpointURL(base+"/v1/metrics"),
		otlpmetrichttp.WithTimeout(timeout),
		otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false}))
	if err != nil {
		return nil, fmt.Errorf("metric exporter: %w", err)
	}
	return p, nil
}

// export sends what the sinks gathered and the current metric values, and
// empties the sinks. It returns only once the receiver has accepted all of
// it (or the exporters gave up).
func (p *pipeline) export(ctx context.Context) error {
	spans, records := p.spans.take(), p.logs.take()
	if p.traceExp == nil {
		return nil
	}
	if len(records) > 0 {
		if err := p.retry(ctx, func() error { return p.logExp.Export(ctx, records) }); err != nil {
			return fmt.Errorf("export logs: %w", err)
		}
	}
	if len(spans) > 0 {
		if err := p.retry(ctx, func() error { return p.traceExp.ExportSpans(ctx, spans) }); err != nil {
			return fmt.Errorf("export traces: %w", err)
		}
	}
	var rm metricdata.ResourceMetrics
	if err := p.reader.Collect(ctx, &rm); err != nil {
		return fmt.Errorf("collect metrics: %w", err)
	}
	if len(rm.ScopeMetrics) > 0 {
		if err := p.retry(ctx, func() error { return p.metricExp.Export(ctx, &rm) }); err != nil {
			return fmt.Errorf("export metrics: %w", err)
		}
	}
	return nil
}

// retry calls send until it succeeds, waiting 0.5 s, 1 s, 2 s, … (at most
// 10 s) between tries, for at most retryFor. The exporters' own retry is
// off: it does not retry a refused connection.
func (p *pipeline) retry(ctx context.Context, send func() error) error {
	deadline := time.Now().Add(p.retryFor)
	wait := 500 * time.Millisecond
	for tries := 1; ; tries++ {
		err := send()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("gave up after %d tries in %s: %w", tries, p.retryFor, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 10*time.Second)
	}
}

func (p *pipeline) shutdown(ctx context.Context) error {
	var errs []error
	for _, f := range []func(context.Context) error{p.tp.Shutdown, p.lp.Shutdown, p.mp.Shutdown} {
		errs = append(errs, f(ctx))
	}
	if p.traceExp != nil {
		errs = append(errs, p.traceExp.Shutdown(ctx), p.logExp.Shutdown(ctx), p.metricExp.Shutdown(ctx))
	}
	return errors.Join(errs...)
}

// fixedIDs is the tracer's id generator: it hands out the ids the shipper
// derived from the recorded events (see ids.go), put in the context.
type fixedIDs struct{}

type idsKey struct{}

type spanIDs struct {
	trace trace.TraceID
	span  trace.SpanID
}

func withIDs(ctx context.Context, t trace.TraceID, s trace.SpanID) context.Context {
	return context.WithValue(ctx, idsKey{}, spanIDs{t, s})
}

func (fixedIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	v, _ := ctx.Value(idsKey{}).(spanIDs)
	return v.trace, v.span
}

func (fixedIDs) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	v, _ := ctx.Value(idsKey{}).(spanIDs)
	return v.span
}

// spanSink gathers ended spans.
type spanSink struct{ spans []sdktrace.ReadOnlySpan }

func (s *spanSink) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (s *spanSink) OnEnd(sp sdktrace.ReadOnlySpan)                  { s.spans = append(s.spans, sp) }
func (s *spanSink) Shutdown(context.Context) error                  { return nil }
func (s *spanSink) ForceFlush(context.Context) error                { return nil }
func (s *spanSink) take() []sdktrace.ReadOnlySpan {
	out := s.spans
	s.spans = nil
	return out
}

// logSink gathers emitted log records.
type logSink struct{ records []sdklog.Record }

func (s *logSink) OnEmit(_ context.Context, r *sdklog.Record) error {
	s.records = append(s.records, r.Clone())
	return nil
}
func (s *logSink) Enabled(context.Context, sdklog.EnabledParameters) bool { return true }
func (s *logSink) Shutdown(context.Context) error                         { return nil }
func (s *logSink) ForceFlush(context.Context) error                       { return nil }
func (s *logSink) take() []sdklog.Record {
	out := s.records
	s.records = nil
	return out
}
