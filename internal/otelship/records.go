package otelship

import (
	"encoding/json"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/trace"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/otelcursor"
	"github.com/dylan-gluck/spcstr/logs"
)

// decision handles one gate decision: its metric count and log record.
func (x *shipper) decision(it *item) {
	r := it.dec
	ss := x.session(it.session)
	if ss.Decisions == nil {
		ss.Decisions = map[string]int64{}
	}
	ss.Decisions[strings.Join([]string{r.Source, r.Decision, r.Hook, boolStr(r.DryRun)}, "\x1f")]++
	x.touched[it.session] = true
	x.stats.Decisions++
	on, ok := x.decSpan[decKey{it.session, r.Hook, r.Timestamp.UnixNano()}]
	if !ok {
		on = sessionSpan(it.session)
	}
	var rec log.Record
	rec.SetEventName("spcstr.gate.decision")
	rec.SetTimestamp(r.Timestamp)
	rec.SetObservedTimestamp(r.Timestamp)
	rec.SetSeverity(log.SeverityInfo)
	if r.Decision == gate.Deny || r.Decision == gate.Block {
		rec.SetSeverity(log.SeverityWarn)
	}
	rec.SetBody(attribute.StringValue(r.Source + ": " + r.Decision + " " + r.Hook))
	rec.AddAttributes(
		attribute.String(attrEventName, "spcstr.gate.decision"), attribute.String(attrRecordUID, it.uid),
		attribute.String(attrSessionID, it.session), attribute.String("request_id", r.RequestID),
		attribute.String("source", r.Source), attribute.String("decision", r.Decision), attribute.String("hook", r.Hook),
		attribute.String("reason", r.Reason), attribute.String("message", r.Message), attribute.Bool("dry_run", r.DryRun),
		attribute.Float64("duration_ms", r.DurationMS),
	)
	if r.Error != "" {
		rec.AddAttributes(attribute.String(attrErrorType, "gate_error"), attribute.String("error", r.Error))
	}
	x.emit(it.session, on, rec)
}

// logEvent emits a hook event's log record.
func (x *shipper) logEvent(it *item, on string) {
	ev := it.ev
	name := "spcstr." + hookio.SnakeName(it.event)
	var rec log.Record
	rec.SetEventName(name)
	rec.SetTimestamp(it.ts)
	rec.SetObservedTimestamp(it.ts)
	rec.SetSeverity(log.SeverityInfo)
	body := it.event
	if ev.ToolName != "" {
		body += " " + ev.ToolName
	}
	rec.SetBody(attribute.StringValue(body))
	attrs := []attribute.KeyValue{
		attribute.String(attrEventName, name), attribute.String(attrRecordUID, it.uid),
		attribute.String(attrSessionID, it.session), attribute.String("hook_event_name", it.event),
	}
	add := func(k, v string) {
		if v != "" {
			attrs = append(attrs, attribute.String(k, v))
		}
	}
	add(attrPromptID, ev.PromptID)
	add(attrToolUseID, ev.ToolUseID)
	add(attrToolName, ev.ToolName)
	add(attrAgentID, ev.AgentID)
	add(attrAgentType, ev.AgentType)
	add(attrModel, ev.Model)
	add("source", ev.Source)
	add("reason", ev.Reason)
	add("notification_type", ev.NotificationType)
	add(attrFilePath, x.relPath(nonEmpty(it.path, ev.FilePath)))
	if o := it.outcome; o != nil {
		attrs = append(attrs, attribute.Float64("spcstr.hook.duration_ms", o.DurationMS))
	}
	// What the hook answered: its record in answers.json, or (an entry
	// written before answers.json) the entry's own outcome.
	var answer []byte
	decisions := 0
	if a := x.d.answers[logs.EventKey(it.session, it.event, ev.ToolUseID, it.ts)]; a != nil {
		answer, decisions = a.Answer, a.Decisions
		attrs = append(attrs, attribute.Float64("spcstr.gate.duration_ms", a.DurationMS))
	} else if o := it.outcome; o != nil {
		answer, decisions = o.Answer, o.Decisions
	}
	if decisions > 0 {
		attrs = append(attrs, attribute.Int("spcstr.decisions", decisions))
	}
	if len(answer) > 0 && string(answer) != "null" {
		attrs = append(attrs, attribute.Bool("spcstr.hook.answered", true))
		if x.opt.IncludeContent {
			add("spcstr.hook.answer", clip(string(answer)))
		}
	}
	if x.opt.IncludeContent {
		add("prompt", clip(ev.Prompt))
		add("message", clip(ev.Message))
		add("last_assistant_message", clip(ev.LastAssistantMessage))
		add("error", clip(ev.Error))
		if len(ev.ToolInput) > 0 {
			add("tool_input", clip(string(ev.ToolInput)))
		}
		if len(ev.ToolResponse) > 0 {
			add("tool_response", clip(string(ev.ToolResponse)))
		}
	}
	rec.AddAttributes(attrs...)
	x.emit(it.session, on, rec)
}

// emit sends a log record in the context of the span it belongs to, so
// that it carries that span's trace and span ids.
func (x *shipper) emit(sid string, on any, rec log.Record) {
	var span trace.SpanID
	switch v := on.(type) {
	case string:
		span = parseSpanID(v)
	case trace.SpanID:
		span = v
	}
	ctx := trace.ContextWithSpanContext(x.ctx, trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: traceID(sid), SpanID: span, TraceFlags: trace.FlagsSampled,
	}))
	x.p.logger.Emit(ctx, rec)
	x.stats.LogRecords++
}

func sAttr(k, v string) otelcursor.Attr { return otelcursor.Attr{Key: k, Str: v, Kind: "s"} }
func iAttr(k string, v int64) otelcursor.Attr {
	return otelcursor.Attr{Key: k, Int: v, Kind: "i"}
}
func bAttr(k string, v bool) otelcursor.Attr { return otelcursor.Attr{Key: k, Bool: v, Kind: "b"} }

// dropEmpty leaves out empty strings.
func dropEmpty(attrs []otelcursor.Attr) []otelcursor.Attr {
	out := attrs[:0:0]
	for _, a := range attrs {
		if a.Kind == "s" && a.Str == "" {
			continue
		}
		out = append(out, a)
	}
	return out
}

func kvs(attrs []otelcursor.Attr) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, len(attrs))
	for _, a := range attrs {
		switch a.Kind {
		case "i":
			out = append(out, attribute.Int64(a.Key, a.Int))
		case "b":
			out = append(out, attribute.Bool(a.Key, a.Bool))
		default:
			out = append(out, attribute.String(a.Key, a.Str))
		}
	}
	return out
}

func parseTraceID(s string) trace.TraceID {
	id, _ := trace.TraceIDFromHex(s)
	return id
}

func parseSpanID(s string) trace.SpanID {
	id, _ := trace.SpanIDFromHex(s)
	return id
}

func nonEmpty(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// clip bounds a content attribute and keeps it valid JSON-free text.
func clip(s string) string {
	if len(s) <= maxContent {
		return s
	}
	b, _ := json.Marshal(len(s))
	return strings.ToValidUTF8(s[:maxContent], "") + "… [" + string(b) + " bytes]"
}
