package otelship_test

import (
	"context"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/dylan-gluck/spcstr/internal/otelcursor"
	"github.com/dylan-gluck/spcstr/internal/otelship"
	"github.com/dylan-gluck/spcstr/state"
)

func ship(t testing.TB, l state.Layout, r *receiver, opt otelship.Options) otelship.Stats {
	t.Helper()
	opt.Layout, opt.Endpoint = l, r.URL()
	if opt.RetryFor == 0 {
		opt.RetryFor = 5 * time.Second
	}
	st, err := otelship.Ship(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// tree indexes spans by name for the assertions.
type tree struct {
	t     testing.TB
	spans map[string]*tracepb.Span
}

func (tr tree) byName(name string) []*tracepb.Span {
	var out []*tracepb.Span
	for _, s := range tr.spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func (tr tree) one(name string) *tracepb.Span {
	tr.t.Helper()
	got := tr.byName(name)
	if len(got) != 1 {
		tr.t.Fatalf("want one span %q, got %d (spans: %v)", name, len(got), tr.names())
	}
	return got[0]
}

func (tr tree) names() []string {
	var out []string
	for _, s := range tr.spans {
		out = append(out, s.Name)
	}
	return out
}

// parentOf checks that child's parent is parent.
func (tr tree) parentOf(child, parent *tracepb.Span) {
	tr.t.Helper()
	if hex.EncodeToString(child.ParentSpanId) != hex.EncodeToString(parent.SpanId) {
		tr.t.Errorf("%s (tool_use_id %s): parent %x, want %s %x", child.Name, attr(child.Attributes, "tool_use_id"),
			child.ParentSpanId, parent.Name, parent.SpanId)
	}
}

func TestAgentsSessionTree(t *testing.T) {
	l := newProject(t)
	id := replay(t, l, "agents", "")
	r := newReceiver(t)
	st := ship(t, l, r, otelship.Options{})
	if st.Events != 23 {
		t.Errorf("shipped %d events, want the capture's 23", st.Events)
	}
	checkAgentsTree(t, r, l, id)
	if n := len(r.uniqueLogs(t)); n != 23 {
		t.Errorf("got %d log records, want one per event (23)", n)
	}
	if n := len(r.uniqueSpans(t)); n != 8 {
		t.Errorf("got %d spans, want 8", n)
	}
}

// checkAgentsTree checks the agents capture's trace and its log records
// and metrics, as received by r.
func checkAgentsTree(t *testing.T, r *receiver, l state.Layout, id string) {
	t.Helper()
	tr := tree{t, map[string]*tracepb.Span{}}
	for k, s := range r.uniqueSpans(t) {
		if hex.EncodeToString(s.TraceId) == strings.ReplaceAll(id, "-", "") {
			tr.spans[k] = s
		}
	}
	root := tr.one("session")
	if want := strings.ReplaceAll(id, "-", ""); hex.EncodeToString(root.TraceId) != want {
		t.Errorf("trace id %x, want the session id %s", root.TraceId, want)
	}
	if len(root.ParentSpanId) != 0 {
		t.Errorf("session span has a parent")
	}
	for _, s := range tr.spans {
		if hex.EncodeToString(s.TraceId) != hex.EncodeToString(root.TraceId) {
			t.Errorf("%s is in another trace", s.Name)
		}
		if s.StartTimeUnixNano > s.EndTimeUnixNano || s.StartTimeUnixNano < root.StartTimeUnixNano || s.EndTimeUnixNano > root.EndTimeUnixNano {
			t.Errorf("%s: times %d–%d outside the session's %d–%d", s.Name, s.StartTimeUnixNano, s.EndTimeUnixNano, root.StartTimeUnixNano, root.EndTimeUnixNano)
		}
	}
	turn := tr.one("turn")
	tr.parentOf(turn, root)
	if attr(turn.Attributes, "prompt.id") == "" || attr(turn.Attributes, "prompt") != "" {
		t.Errorf("turn attributes: %v (want prompt.id, no prompt text)", turn.Attributes)
	}
	agentCalls := tr.byName("execute_tool Agent")
	if len(agentCalls) != 2 {
		t.Fatalf("want 2 Agent calls, got %d", len(agentCalls))
	}
	for _, c := range agentCalls {
		tr.parentOf(c, turn)
	}
	// The capture spawns the helper first, then the reviewer.
	if agentCalls[0].StartTimeUnixNano > agentCalls[1].StartTimeUnixNano {
		agentCalls[0], agentCalls[1] = agentCalls[1], agentCalls[0]
	}
	helper, reviewer := tr.one("invoke_agent general-purpose"), tr.one("invoke_agent reviewer")
	tr.parentOf(helper, agentCalls[0])
	tr.parentOf(reviewer, agentCalls[1])
	tr.parentOf(tr.one("execute_tool Bash"), helper)
	read := tr.one("execute_tool Read")
	tr.parentOf(read, reviewer)
	if got := attr(read.Attributes, "code.file.path"); got != "README.md" {
		t.Errorf("Read's code.file.path = %q, want the project-relative README.md", got)
	}
	if len(tr.spans) != 8 {
		t.Errorf("got %d spans, want 8: %v", len(tr.spans), tr.names())
	}

	names := map[string]int{}
	for _, rec := range r.uniqueLogs(t) {
		if attr(rec.Attributes, "session.id") != id {
			continue
		}
		names[attr(rec.Attributes, "event.name")]++
		if attr(rec.Attributes, "session.id") != id || hex.EncodeToString(rec.TraceId) != hex.EncodeToString(root.TraceId) {
			t.Errorf("log record %s not tied to the session's trace", attr(rec.Attributes, "event.name"))
		}
	}
	if names["spcstr.pre_tool_use"] != 4 || names["spcstr.subagent_start"] != 2 || names["spcstr.session_end"] != 1 {
		t.Errorf("log records by event.name: %v", names)
	}

	key := "tool_name=Agent outcome=success "
	if m := modelOf(t, l, id); m != "" {
		key += "model=" + m + " "
	}
	calls2 := r.sums("spcstr.tool.calls")
	if calls2[key] != 2 {
		t.Errorf("spcstr.tool.calls: %v", calls2)
	}
	tokens := r.sums("spcstr.token.usage")
	if len(tokens) == 0 {
		t.Errorf("no spcstr.token.usage points")
	}
	for k, v := range tokens {
		if v <= 0 || !strings.Contains(k, "type=") {
			t.Errorf("token point %q = %d", k, v)
		}
	}
}

func modelOf(t testing.TB, l state.Layout, id string) string {
	s, err := l.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	return s.Model
}

func TestDeniedCallCarriesItsDecision(t *testing.T) {
	l := newProject(t)
	id := replay(t, l, "basic", "Bash")
	r := newReceiver(t)
	ship(t, l, r, otelship.Options{})
	checkDenied(t, r, id)
}

// checkDenied checks the basic capture with its Bash calls denied.
func checkDenied(t *testing.T, r *receiver, id string) {
	t.Helper()
	tr := tree{t, map[string]*tracepb.Span{}}
	for k, s := range r.uniqueSpans(t) {
		if hex.EncodeToString(s.TraceId) == strings.ReplaceAll(id, "-", "") {
			tr.spans[k] = s
		}
	}
	bash := tr.byName("execute_tool Bash")
	if len(bash) != 2 {
		t.Fatalf("want 2 Bash calls, got %d", len(bash))
	}
	for _, s := range bash {
		if s.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || attr(s.Attributes, "error.type") != "denied" {
			t.Errorf("denied Bash call: status %v, error.type %q", s.Status, attr(s.Attributes, "error.type"))
		}
		if len(s.Events) != 1 || s.Events[0].Name != "spcstr.gate.decision" ||
			attr(s.Events[0].Attributes, "decision") != "deny" || attr(s.Events[0].Attributes, "source") != "deny-Bash" ||
			attr(s.Events[0].Attributes, "reason") != "Bash is not allowed here" {
			t.Errorf("denied Bash call's events: %v", s.Events)
		}
	}
	var decisions int
	for _, rec := range r.uniqueLogs(t) {
		if attr(rec.Attributes, "event.name") != "spcstr.gate.decision" {
			continue
		}
		decisions++
		var on *tracepb.Span
		for _, s := range bash {
			if hex.EncodeToString(s.SpanId) == hex.EncodeToString(rec.SpanId) {
				on = s
			}
		}
		if on == nil || attr(rec.Attributes, "decision") != "deny" {
			t.Errorf("decision record not on the call it judged: span %x, %v", rec.SpanId, rec.Attributes)
		}
	}
	if decisions != 2 {
		t.Errorf("got %d decision log records, want 2", decisions)
	}
	var denied int64
	for k, v := range r.sums("spcstr.gate.decisions") {
		if strings.Contains(k, "source=deny-Bash decision=deny hook=PreToolUse") {
			denied += v
		}
	}
	if denied != 2 {
		t.Errorf("spcstr.gate.decisions deny-Bash/deny = %d, want 2 (%v)", denied, r.sums("spcstr.gate.decisions"))
	}
}

func TestRerunShipsOnlyWhatIsNew(t *testing.T) {
	l := newProject(t)
	replay(t, l, "agents", "")
	r := newReceiver(t)
	first := ship(t, l, r, otelship.Options{Batch: 5})
	s1, l1, _ := r.counts()
	again := ship(t, l, r, otelship.Options{})
	if again != (otelship.Stats{}) {
		t.Errorf("second run shipped %+v, want nothing", again)
	}
	if s2, l2, _ := r.counts(); s2 != s1 || l2 != l1 {
		t.Errorf("second run sent %d spans and %d log records more", s2-s1, l2-l1)
	}
	replay(t, l, "basic", "")
	more := ship(t, l, r, otelship.Options{})
	if more.Events != 34 {
		t.Errorf("after a new session the run shipped %d events, want its 34 (first run: %d)", more.Events, first.Events)
	}
	if n := len(r.uniqueLogs(t)); n != 23+34 {
		t.Errorf("receiver holds %d distinct log records, want 57", n)
	}
	_, l3, _ := r.counts()
	if l3 != 23+34 {
		t.Errorf("receiver got %d log records in all, want 57 (nothing sent twice)", l3)
	}
}

// TestResentBatchIsHarmless plays a run killed after the receiver accepted
// a batch but before the cursor moved: the next run sends the same batch
// again, with the same ids and content.
func TestResentBatchIsHarmless(t *testing.T) {
	l := newProject(t)
	replay(t, l, "agents", "")
	r := newReceiver(t)
	ship(t, l, r, otelship.Options{Batch: 7})
	spans, logs := len(r.uniqueSpans(t)), len(r.uniqueLogs(t))
	if err := os.Remove(otelcursor.Path(l)); err != nil {
		t.Fatal(err)
	}
	ship(t, l, r, otelship.Options{Batch: 3})
	if got := len(r.uniqueSpans(t)); got != spans {
		t.Errorf("after a resend: %d distinct spans, want %d", got, spans)
	}
	if got := len(r.uniqueLogs(t)); got != logs {
		t.Errorf("after a resend: %d distinct log records, want %d", got, logs)
	}
	if n, _, _ := r.counts(); n != 2*spans {
		t.Errorf("receiver got %d spans, want each of the %d twice", n, spans)
	}
}

func TestPrivacy(t *testing.T) {
	for _, include := range []bool{false, true} {
		l := newProject(t)
		replay(t, l, "basic", "")
		r := newReceiver(t)
		ship(t, l, r, otelship.Options{IncludeContent: include})
		content := 0
		for _, rec := range r.uniqueLogs(t) {
			for _, kv := range rec.Attributes {
				switch kv.Key {
				case "prompt", "tool_input", "tool_response", "last_assistant_message":
					content++
				}
				if v := kv.Value.GetStringValue(); strings.Contains(v, l.Root) && !include {
					t.Errorf("%s carries an absolute project path: %q", kv.Key, v)
				}
			}
		}
		if include != (content > 0) {
			t.Errorf("include_content %v: %d content attributes", include, content)
		}
	}
}

func TestUnreachableThenResume(t *testing.T) {
	l := newProject(t)
	replay(t, l, "agents", "")
	r := newReceiver(t)
	r.setFail(true)
	_, err := otelship.Ship(context.Background(), otelship.Options{Layout: l, Endpoint: r.URL(), RetryFor: 1500 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), r.URL()) || !strings.Contains(err.Error(), "next run resumes") {
		t.Fatalf("want a clear error naming the endpoint, got %v", err)
	}
	if r.requests < 2 {
		t.Errorf("the exporter tried %d times, want retries", r.requests)
	}
	if _, err := os.Stat(otelcursor.Path(l)); !os.IsNotExist(err) {
		t.Errorf("cursor written although nothing was accepted: %v", err)
	}
	r.setFail(false)
	ship(t, l, r, otelship.Options{})
	if n := len(r.uniqueLogs(t)); n != 23 {
		t.Errorf("after resuming: %d log records, want 23", n)
	}
}

// TestSmallPassesShipTheSame ships in passes of a few entries (the memory
// bound a large backlog gets) and checks the result is the one-pass one.
func TestSmallPassesShipTheSame(t *testing.T) {
	one, many := newProject(t), newProject(t)
	for _, l := range []state.Layout{one, many} {
		replay(t, l, "agents", "")
		replay(t, l, "basic", "Bash")
	}
	r1, r2 := newReceiver(t), newReceiver(t)
	want := ship(t, one, r1, otelship.Options{})
	st := ship(t, many, r2, otelship.Options{PassEntries: 5, Batch: 3})
	if st != want || st.Decisions != 2 {
		t.Errorf("small passes shipped %+v, one pass %+v", st, want)
	}
	s1, s2 := r1.uniqueSpans(t), r2.uniqueSpans(t)
	if len(s1) != len(s2) {
		t.Errorf("one pass: %d spans; small passes: %d", len(s1), len(s2))
	}
	for id, s := range s1 {
		// Known gap: a pass boundary can separate an event from the
		// decisions logged at the same instant (only with passes far
		// smaller than the default 20,000), so only the tree is compared.
		if o := s2[id]; o == nil || o.Name != s.Name || string(o.ParentSpanId) != string(s.ParentSpanId) ||
			o.StartTimeUnixNano != s.StartTimeUnixNano {
			t.Errorf("span %s (%s) differs when shipped in small passes", id, s.Name)
		}
	}
	if n1, n2 := len(r1.uniqueLogs(t)), len(r2.uniqueLogs(t)); n1 != n2 || n1 != want.Events+want.Decisions {
		t.Errorf("log records: one pass %d, small passes %d, want %d", n1, n2, want.Events+want.Decisions)
	}
}

func TestHonoursOTELEnvironment(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=secret,x-team=infra")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "developer=ana,team=infra")
	t.Setenv("OTEL_SERVICE_NAME", "")
	l := newProject(t)
	replay(t, l, "slash-command", "")
	r := newReceiver(t)
	ship(t, l, r, otelship.Options{Version: "1.2.3"})
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.headers.Get("X-Api-Key") != "secret" || r.headers.Get("X-Team") != "infra" {
		t.Errorf("OTEL_EXPORTER_OTLP_HEADERS not sent: %v", r.headers)
	}
	if len(r.resources) == 0 {
		t.Fatal("no resource received")
	}
	res := r.resources[0]
	for k, want := range map[string]string{"developer": "ana", "team": "infra", "service.name": "spcstr", "service.version": "1.2.3"} {
		if got := attr(res, k); got != want {
			t.Errorf("resource %s = %q, want %q", k, got, want)
		}
	}
	if got := otelship.Endpoint("", func(string) string { return "http://c:4318" }); got != "http://c:4318" {
		t.Errorf("Endpoint from the environment: %q", got)
	}
	if got := otelship.Endpoint("http://flag", func(string) string { return "http://c:4318" }); got != "http://flag" {
		t.Errorf("--endpoint does not win: %q", got)
	}
	if got := otelship.Endpoint("", func(string) string { return "" }); got != otelship.DefaultEndpoint {
		t.Errorf("default endpoint: %q", got)
	}
}
