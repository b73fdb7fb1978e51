package otelship

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/otelcursor"
	"github.com/dylan-gluck/spcstr/state"
)

// Attribute names. OpenTelemetry's semantic conventions where one exists;
// Claude Code's own telemetry names where they overlap, so that a team can
// join spcstr's signals with Claude Code's.
const (
	attrSessionID   = "session.id"
	attrPromptID    = "prompt.id"
	attrToolUseID   = "tool_use_id"
	attrToolName    = "tool_name"
	attrAgentID     = "agent_id"
	attrAgentType   = "agent_type"
	attrModel       = "model"
	attrEventName   = "event.name"
	attrRecordUID   = "log.record.uid"
	attrErrorType   = "error.type"
	attrFilePath    = "code.file.path"
	attrGenAIOp     = "gen_ai.operation.name"
	attrGenAITool   = "gen_ai.tool.name"
	attrGenAICallID = "gen_ai.tool.call.id"
	attrGenAIAgent  = "gen_ai.agent.id"
	attrGenAIName   = "gen_ai.agent.name"
	attrGenAIModel  = "gen_ai.request.model"
)

// Gate decision outcomes the shipper acts on.
const (
	outcomeSuccess = "success"
	outcomeFailure = "failure"
	outcomeDenied  = "denied"
)

// maxContent bounds one content attribute (prompt, tool input or output)
// when otel.include_content is on.
const maxContent = 16 << 10

// shipper turns recorded entries into spans, log records and metric
// counts. It carries its state from run to run in the cursor.
type shipper struct {
	ctx     context.Context
	opt     *Options
	cur     *otelcursor.Cursor
	d       *delta
	p       *pipeline
	states  map[string]*state.Session // state.json, read at most once per run
	touched map[string]bool           // sessions with new counts this batch
	// decSpan is the span each decision's event landed on, this run.
	decSpan map[decKey]trace.SpanID
	stats   Stats
}

func (x *shipper) session(id string) *otelcursor.Session {
	ss := x.cur.Sessions[id]
	if ss == nil {
		ss = &otelcursor.Session{}
		x.cur.Sessions[id] = ss
	}
	return ss
}

// state reads a session's state.json (agents' parents, tokens, model).
func (x *shipper) state(id string) *state.Session {
	if s, ok := x.states[id]; ok {
		return s
	}
	s, err := x.opt.Layout.Load(id)
	if err != nil {
		s = nil
	}
	x.states[id] = s
	return s
}

func (x *shipper) process(it *item) {
	if it.session == "" || !state.ValidSessionID(it.session) {
		return
	}
	if it.dec != nil {
		x.decision(it)
		return
	}
	if it.ans != nil {
		return // shipped with the event it answered (eventRecord)
	}
	x.event(it)
}

// event handles one hook event: the spans it opens or closes, and its log
// record.
func (x *shipper) event(it *item) {
	ev, sid := it.ev, it.session
	ss := x.session(sid)
	x.stats.Events++
	if ev.Model != "" {
		ss.Model = ev.Model
	}
	root := x.openSession(it, ss)
	decs := x.d.decisions[decKey{sid, it.event, it.ts.UnixNano()}]
	on := root // the span this event's log record and decisions belong to
	switch it.event {
	case hookio.UserPromptSubmit:
		if ss.Turn != "" {
			x.close(ss.Turn, it.ts, codes.Unset, "", bAttr("spcstr.turn.interrupted", true))
		}
		key := ev.PromptID
		if key == "" {
			key = it.ts.Format(time.RFC3339Nano)
		}
		attrs := []otelcursor.Attr{sAttr(attrSessionID, sid), sAttr(attrPromptID, ev.PromptID), iAttr("prompt_length", int64(len(ev.Prompt)))}
		if x.opt.IncludeContent {
			attrs = append(attrs, sAttr("prompt", clip(ev.Prompt)))
		}
		sp := x.open(sid, kindTurn, key, "turn", root, it.ts, attrs)
		ss.Turn = sp.SpanID
		on = sp.SpanID
		x.addDecisions(sp, decs)
		if blocked(decs, gate.Block) {
			x.close(sp.SpanID, it.ts, codes.Error, "prompt blocked", sAttr(attrErrorType, "blocked"))
			ss.Turn = ""
		}
	case hookio.Stop, hookio.StopFailure:
		if ss.Turn == "" {
			break
		}
		on = ss.Turn
		if sp := x.cur.Open[ss.Turn]; sp != nil {
			x.addDecisions(sp, decs)
		}
		if blocked(decs, gate.Block) {
			break // the turn goes on
		}
		if it.event == hookio.StopFailure {
			x.close(ss.Turn, it.ts, codes.Error, "turn failed", sAttr(attrErrorType, nonEmpty(ev.Error, "stop_failure")))
		} else {
			x.close(ss.Turn, it.ts, codes.Unset, "")
		}
		ss.Turn = ""
	case hookio.PreToolUse:
		sp := x.openTool(it, ss, root)
		on = sp.SpanID
		x.addDecisions(sp, decs)
		if blocked(decs, gate.Deny) {
			x.count(sid, ss, ev.ToolName, outcomeDenied)
			x.close(sp.SpanID, it.ts, codes.Error, "denied by a gate", sAttr(attrErrorType, "denied"))
		}
	case hookio.PostToolUse, hookio.PostToolUseFailure, hookio.PermissionDenied:
		sp := x.openTool(it, ss, root)
		on = sp.SpanID
		x.addDecisions(sp, decs)
		extra := x.toolResult(it)
		switch it.event {
		case hookio.PostToolUse:
			x.count(sid, ss, ev.ToolName, outcomeSuccess)
			x.close(sp.SpanID, it.ts, codes.Unset, "", extra...)
		case hookio.PostToolUseFailure:
			x.count(sid, ss, ev.ToolName, outcomeFailure)
			et := "tool_error"
			if ev.IsInterrupt {
				et = "interrupted"
			}
			x.close(sp.SpanID, it.ts, codes.Error, "tool call failed", append(extra, sAttr(attrErrorType, et))...)
		default:
			x.count(sid, ss, ev.ToolName, outcomeDenied)
			x.close(sp.SpanID, it.ts, codes.Error, "permission denied", sAttr(attrErrorType, "permission_denied"))
		}
	case hookio.SubagentStart:
		if ev.AgentID == "" {
			break
		}
		sp := x.open(sid, kindAgent, ev.AgentID, "invoke_agent "+nonEmpty(ev.AgentType, "agent"), x.agentParent(it, root), it.ts,
			[]otelcursor.Attr{sAttr(attrSessionID, sid), sAttr(attrAgentID, ev.AgentID), sAttr(attrAgentType, ev.AgentType),
				sAttr(attrGenAIOp, "invoke_agent"), sAttr(attrGenAIAgent, ev.AgentID), sAttr(attrGenAIName, ev.AgentType),
				sAttr(attrPromptID, ev.PromptID), bAttr("spcstr.agent.background", x.background(it))})
		on = sp.SpanID
		x.addDecisions(sp, decs)
	case hookio.SubagentStop:
		if ev.AgentID == "" {
			break
		}
		id := spanID(sid, kindAgent, ev.AgentID).String()
		if sp := x.cur.Open[id]; sp != nil {
			x.addDecisions(sp, decs)
			on = id
		}
		if !blocked(decs, gate.Block) {
			x.close(id, it.ts, codes.Unset, "")
		}
	case hookio.SessionEnd:
		for id, sp := range x.cur.Open {
			if sp.Session == sid && id != root {
				x.close(id, it.ts, codes.Unset, "", bAttr("spcstr.incomplete", true))
			}
		}
		if sp := x.cur.Open[root]; sp != nil {
			x.addDecisions(sp, decs)
			x.close(root, it.ts, codes.Unset, "", sAttr("spcstr.end_reason", ev.Reason))
		}
		ss.Turn, ss.Ended = "", true
	default:
		if sp := x.cur.Open[root]; sp != nil {
			x.addDecisions(sp, decs)
		}
	}
	for _, r := range decs {
		x.decSpan[decKey{sid, r.Hook, r.Timestamp.UnixNano()}] = parseSpanID(on)
	}
	x.logEvent(it, on)
}

// openSession opens the session's root span at its first event (again
// after a SessionEnd when the session is resumed) and returns its id.
func (x *shipper) openSession(it *item, ss *otelcursor.Session) string {
	sid := it.session
	id := sessionSpan(sid).String()
	if x.cur.Open[id] != nil {
		return id
	}
	if ss.Start.IsZero() || (!ss.Ended && it.ts.Before(ss.Start)) {
		ss.Start = it.ts
	}
	ss.Ended = false
	attrs := []otelcursor.Attr{sAttr(attrSessionID, sid), sAttr("spcstr.project", filepath.Base(x.opt.Layout.Root))}
	if s := x.state(sid); s != nil {
		if s.Branch != "" {
			attrs = append(attrs, sAttr("vcs.ref.head.name", s.Branch))
		}
		if !s.CreatedAt.IsZero() && s.CreatedAt.Before(ss.Start) {
			ss.Start = s.CreatedAt
		}
	}
	sp := &otelcursor.Span{TraceID: traceID(sid).String(), SpanID: id, Name: "session", Session: sid, Start: ss.Start, Attrs: attrs}
	x.cur.Open[id] = sp
	return id
}

// open starts a span (or returns the one already open with the same id).
func (x *shipper) open(sid, kind, key, name, parent string, start time.Time, attrs []otelcursor.Attr) *otelcursor.Span {
	id := spanID(sid, kind, key).String()
	if sp := x.cur.Open[id]; sp != nil {
		return sp
	}
	sp := &otelcursor.Span{TraceID: traceID(sid).String(), SpanID: id, ParentID: parent, Name: name, Session: sid, Start: start, Attrs: dropEmpty(attrs)}
	x.cur.Open[id] = sp
	return sp
}

// openTool returns the span of the tool call an event belongs to, opening
// it when its PreToolUse was not seen (then it starts at the call's
// recorded duration before the event, or at the event).
func (x *shipper) openTool(it *item, ss *otelcursor.Session, root string) *otelcursor.Span {
	ev, sid := it.ev, it.session
	key := nonEmpty(ev.ToolUseID, it.uid)
	start := it.ts
	if it.event != hookio.PreToolUse && ev.DurationMS > 0 {
		start = it.ts.Add(-time.Duration(ev.DurationMS * float64(time.Millisecond)))
	}
	parent := root
	switch {
	case ev.AgentID != "":
		parent = spanID(sid, kindAgent, ev.AgentID).String()
	case ev.PromptID != "":
		parent = spanID(sid, kindTurn, ev.PromptID).String()
	case ss.Turn != "":
		parent = ss.Turn
	}
	attrs := []otelcursor.Attr{
		sAttr(attrSessionID, sid), sAttr(attrPromptID, ev.PromptID), sAttr(attrAgentID, ev.AgentID),
		sAttr(attrToolName, ev.ToolName), sAttr(attrToolUseID, ev.ToolUseID),
		sAttr(attrGenAIOp, "execute_tool"), sAttr(attrGenAITool, ev.ToolName), sAttr(attrGenAICallID, ev.ToolUseID),
	}
	if p := x.relPath(it.path); p != "" {
		attrs = append(attrs, sAttr(attrFilePath, p))
	}
	if x.opt.IncludeContent && len(ev.ToolInput) > 0 {
		attrs = append(attrs, sAttr("tool_input", clip(string(ev.ToolInput))))
	}
	return x.open(sid, kindTool, key, "execute_tool "+nonEmpty(ev.ToolName, "tool"), parent, start, attrs)
}

// toolResult is what a tool call's end adds to its span.
func (x *shipper) toolResult(it *item) []otelcursor.Attr {
	ev := it.ev
	var out []otelcursor.Attr
	if ev.DurationMS > 0 {
		out = append(out, iAttr("duration_ms", int64(ev.DurationMS)))
	}
	if x.opt.IncludeContent {
		if len(ev.ToolResponse) > 0 {
			out = append(out, sAttr("tool_response", clip(string(ev.ToolResponse))))
		}
		if ev.Error != "" {
			out = append(out, sAttr("error", clip(ev.Error)))
		}
	}
	return out
}

// agentParent is the span of the Agent/Task call that spawned a subagent
// (state.json links the two), else the prompt turn.
func (x *shipper) agentParent(it *item, root string) string {
	if s := x.state(it.session); s != nil {
		for _, a := range s.AgentsHistory {
			if a.AgentID == it.ev.AgentID && a.ToolUseID != "" {
				return spanID(it.session, kindTool, a.ToolUseID).String()
			}
		}
	}
	if it.ev.PromptID != "" {
		return spanID(it.session, kindTurn, it.ev.PromptID).String()
	}
	if t := x.session(it.session).Turn; t != "" {
		return t
	}
	return root
}

func (x *shipper) background(it *item) bool {
	if s := x.state(it.session); s != nil {
		for _, a := range s.AgentsHistory {
			if a.AgentID == it.ev.AgentID {
				return a.Background
			}
		}
	}
	return false
}

// relPath makes a path relative to the project; paths outside it are not
// sent.
func (x *shipper) relPath(p string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		return filepath.ToSlash(filepath.Clean(p))
	}
	rel, err := filepath.Rel(x.opt.Layout.Root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

func (x *shipper) count(sid string, ss *otelcursor.Session, tool, outcome string) {
	if ss.ToolCalls == nil {
		ss.ToolCalls = map[string]int64{}
	}
	ss.ToolCalls[nonEmpty(tool, "unknown")+"\x1f"+outcome]++
	x.touched[sid] = true
}

// addDecisions adds the gate decisions on an event to its span as events.
func (x *shipper) addDecisions(sp *otelcursor.Span, decs []*gate.Record) {
	for _, r := range decs {
		sp.Events = append(sp.Events, otelcursor.Event{Name: "spcstr.gate.decision", Time: r.Timestamp, Attrs: dropEmpty([]otelcursor.Attr{
			sAttr("source", r.Source), sAttr("decision", r.Decision), sAttr("hook", r.Hook),
			sAttr("reason", r.Reason), sAttr("message", r.Message), bAttr("dry_run", r.DryRun), sAttr(attrErrorType, r.Error),
		})})
	}
}

// blocked reports whether a decision with the given verdict takes effect
// (a dry-run one only logs).
func blocked(decs []*gate.Record, verdict string) bool {
	for _, r := range decs {
		if r.Decision == verdict && !r.DryRun {
			return true
		}
	}
	return false
}

// close ends an open span and hands it to the tracer.
func (x *shipper) close(id string, end time.Time, code codes.Code, desc string, extra ...otelcursor.Attr) {
	sp := x.cur.Open[id]
	if sp == nil {
		return
	}
	delete(x.cur.Open, id)
	if end.Before(sp.Start) {
		end = sp.Start
	}
	ctx := withIDs(x.ctx, parseTraceID(sp.TraceID), parseSpanID(sp.SpanID))
	if sp.ParentID != "" {
		ctx = trace.ContextWithRemoteSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: parseTraceID(sp.TraceID), SpanID: parseSpanID(sp.ParentID), TraceFlags: trace.FlagsSampled, Remote: true,
		}))
	}
	_, s := x.p.tracer.Start(ctx, sp.Name, trace.WithTimestamp(sp.Start), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(kvs(append(sp.Attrs, dropEmpty(extra)...))...))
	for _, e := range sp.Events {
		s.AddEvent(e.Name, trace.WithTimestamp(e.Time), trace.WithAttributes(kvs(e.Attrs)...))
	}
	if code != codes.Unset {
		s.SetStatus(code, desc)
	}
	s.End(trace.WithTimestamp(end))
	x.stats.Spans++
}
