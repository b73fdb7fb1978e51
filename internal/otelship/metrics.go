package otelship

import (
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

type traceSpanID = trace.SpanID

// observe reports the touched sessions' cumulative counts.
func (x *shipper) observe(o metric.Observer, tools, decs, tokens metric.Int64Observable) {
	for sid := range x.touched {
		ss := x.session(sid)
		model := ss.Model
		st := x.state(sid)
		if st != nil && st.Model != "" {
			model = st.Model
		}
		base := []attribute.KeyValue{attribute.String(attrSessionID, sid)}
		if model != "" {
			base = append(base, attribute.String(attrModel, model))
		}
		for k, n := range ss.ToolCalls {
			tool, outcome, _ := strings.Cut(k, "\x1f")
			o.ObserveInt64(tools, n, metric.WithAttributes(append(base[:len(base):len(base)],
				attribute.String(attrToolName, tool), attribute.String("outcome", outcome))...))
		}
		for k, n := range ss.Decisions {
			p := strings.Split(k, "\x1f")
			if len(p) != 4 {
				continue
			}
			o.ObserveInt64(decs, n, metric.WithAttributes(append(base[:len(base):len(base)],
				attribute.String("source", p[0]), attribute.String("decision", p[1]),
				attribute.String("hook", p[2]), attribute.Bool("dry_run", p[3] == "true"))...))
		}
		if st == nil {
			continue
		}
		t := st.Tokens
		for _, v := range []struct {
			typ string
			n   int64
		}{{"input", t.Input}, {"output", t.Output}, {"cacheRead", t.CacheRead}, {"cacheCreation", t.CacheCreation}} {
			if v.n > 0 {
				o.ObserveInt64(tokens, v.n, metric.WithAttributes(append(base[:len(base):len(base)], attribute.String("type", v.typ))...))
			}
		}
	}
}
