package export_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/export"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// benchProject is a generated project: one session with n events spread
// over the event logs, other sessions' events interleaved in the same
// files, decisions, and a matching state.json. Payload sizes follow the
// real hook payloads in the captured payload corpus ($SPCSTR_SHARED/corpus) (PreToolUse ~0.6 KB; PostToolUse
// median ~2.4 KB with a long tail up to the 64 KiB cap).
type benchProject struct {
	layout   state.Layout
	id       string
	events   int // the session's events
	byType   map[string]int
	agents   int // Agent calls of the session
	nested   int // of which made inside a subagent
	decided  int // the session's decisions
	logBytes int64
}

const benchCap = logs.DefaultCap

// genProject writes the project under dir.
func genProject(tb testing.TB, dir string, n, others int) *benchProject {
	tb.Helper()
	p := &benchProject{layout: state.Layout{Root: dir}, id: "b3nch000-1111-4222-8333-444455556666", events: n, byType: map[string]int{}}
	if err := os.MkdirAll(p.layout.LogsDir(), 0o755); err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	filler := strings.Repeat(`func handler(w http.ResponseWriter, r *http.Request) {\n\tfmt.Fprintf(w, \"hello %s\", r.URL.Path)\n}\n`, 1+2*benchCap/100)
	text := func(size int) string { return filler[:size] }
	logsOpen := map[string]*logWriter{}
	w := func(snake string) *logWriter {
		lw := logsOpen[snake]
		if lw == nil {
			lw = newLogWriter(tb, p.layout.LogPath(snake))
			logsOpen[snake] = lw
		}
		return lw
	}
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	s := state.New(p.id, dir, t0)
	s.Branch, s.Model, s.Status = "main", "claude-opus-4-5", state.StatusEnded
	otherIDs := []string{"0ther001-aaaa", "0ther002-bbbb", "b3nch000-1111-4222-8333-44445555666X"} // one shares a long prefix

	// postSize draws a PostToolUse response size.
	postSize := func() int {
		switch r := rng.IntN(100); {
		case r < 70:
			return 800 + rng.IntN(2500)
		case r < 95:
			return 5000 + rng.IntN(15000)
		}
		return benchCap + rng.IntN(benchCap) // cut to the cap, marked truncated
	}
	emit := func(sid, event string, at time.Time, payload string, truncated int) {
		snake := hookio.SnakeName(event)
		line := make([]byte, 0, len(payload)+256)
		line = append(line, `{"timestamp":"`...)
		line = at.AppendFormat(line, time.RFC3339Nano)
		line = append(line, `","session_id":"`...)
		line = append(line, sid...)
		line = append(line, `","event":"`...)
		line = append(line, event...)
		line = append(line, `","input":`...)
		line = append(line, payload...)
		line = append(line, `,"outcome":{"duration_ms":`...)
		line = strconv.AppendFloat(line, float64(300+rng.IntN(2500))/1000, 'f', -1, 64)
		line = append(line, '}')
		if truncated > 0 {
			line = append(line, `,"truncated":{"tool_response":`...)
			line = strconv.AppendInt(line, int64(truncated), 10)
			line = append(line, '}')
		}
		line = append(line, '}')
		w(snake).add(line)
		if sid == p.id {
			p.byType[event]++
		}
	}
	base := func(sid, event, extra string) string {
		return `{"session_id":"` + sid + `","transcript_path":"/home/dev/.claude/projects/-work-app/` + sid + `.jsonl","cwd":"` + dir +
			`","permission_mode":"acceptEdits","hook_event_name":"` + event + `"` + extra + `}`
	}
	tool := func(sid, event string, at time.Time, i int, agentID string) {
		tools := []string{"Read", "Bash", "Edit", "Grep", "Read", "Glob", "Write", "Read"}
		name := tools[i%len(tools)]
		file := fmt.Sprintf("%s/internal/pkg%d/file%d.go", dir, i%37, i%211)
		extra := `,"tool_name":"` + name + `","tool_input":{"file_path":"` + file + `","description":"step ` + strconv.Itoa(i) + `"},"tool_use_id":"toolu_` + strconv.Itoa(i) + `"`
		if agentID != "" {
			extra += `,"agent_id":"` + agentID + `","agent_type":"general-purpose"`
		}
		truncated := 0
		switch event {
		case hookio.PostToolUse:
			size := postSize()
			if size > benchCap {
				truncated, size = size+200, benchCap
			}
			extra += `,"tool_response":{"type":"text","file":{"filePath":"` + file + `","content":"` + text(size) + `"}},"duration_ms":12`
		case hookio.PostToolUseFailure:
			extra += `,"error":"Exit code 1\n` + text(300) + `","is_interrupt":false`
		case hookio.PostToolBatch:
			extra = `,"tool_calls":[{"tool_name":"` + name + `","tool_use_id":"toolu_` + strconv.Itoa(i) + `","tool_response":"` + text(400+rng.IntN(800)) + `"}]`
		}
		emit(sid, event, at, base(sid, event, extra), truncated)
		if sid == p.id && (event == hookio.PostToolUse || event == hookio.PostToolUseFailure) {
			s.ToolsUsed[name]++
			if i%9 == 0 {
				rel := strings.TrimPrefix(file, dir+"/")
				if name == "Read" {
					addOnce(&s.Files.Read, rel)
				} else if name == "Edit" || name == "Write" {
					addOnce(&s.Files.Edited, rel)
				}
			}
		}
	}

	// The session: blocks of 100 events per prompt (prompt, tool calls as
	// Pre/Post/Batch triples, an agent every few prompts, a notification,
	// Stop), with other sessions' events interleaved.
	otherEvery := max(1, n/max(1, others))
	otherN := 0
	agentSeq, phase, call := 0, 0, 0
	for i := 0; i < n; {
		at := t0.Add(time.Duration(i) * 50 * time.Millisecond)
		k := i % 100
		var inAgent string
		if (i/100)%5 == 0 && k >= 10 && k < 40 {
			inAgent = fmt.Sprintf("a%016x", i/100)
		}
		switch {
		case k == 0:
			emit(p.id, hookio.UserPromptSubmit, at, base(p.id, hookio.UserPromptSubmit, `,"prompt":"`+text(200+rng.IntN(600))+`","prompt_id":"p`+strconv.Itoa(i)+`"`), 0)
			s.Prompts = append(s.Prompts, state.Prompt{Timestamp: at, Prompt: "Prompt " + strconv.Itoa(i/100) + ": refactor the handlers and run the tests", PromptID: "p" + strconv.Itoa(i)})
			i++
		case k == 99:
			emit(p.id, hookio.Stop, at, base(p.id, hookio.Stop, `,"stop_hook_active":false,"last_assistant_message":"`+text(300)+`"`), 0)
			i++
		case k == 50:
			emit(p.id, hookio.Notification, at, base(p.id, hookio.Notification, `,"message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"`), 0)
			s.Notifications = append(s.Notifications, state.Notification{Timestamp: at, Message: "Claude needs your permission to use Bash", Type: "permission_prompt"})
			i++
		case k == 9 && inAgent == "" && (i/100)%5 == 0:
			// The main chain launches the agent that runs k = 10..39;
			// one in ten such agents launches a nested one itself.
			agentSeq++
			id := fmt.Sprintf("a%016x", i/100)
			tu := "toolu_agent" + strconv.Itoa(agentSeq)
			emit(p.id, hookio.PreToolUse, at, base(p.id, hookio.PreToolUse, `,"tool_name":"Agent","tool_input":{"subagent_type":"general-purpose","description":"Survey part `+strconv.Itoa(agentSeq)+`","prompt":"`+text(500)+`"},"tool_use_id":"`+tu+`"`), 0)
			done := at.Add(1500 * time.Millisecond)
			s.AgentsHistory = append(s.AgentsHistory, state.Agent{Name: "general-purpose", AgentID: id, AgentType: "general-purpose", ToolUseID: tu,
				Description: "Survey part " + strconv.Itoa(agentSeq), StartedAt: at, CompletedAt: &done, Status: state.AgentCompleted, DurationMS: 1500})
			p.agents++
			i++
		case k == 20 && inAgent != "" && (i/100)%50 == 0:
			tu := "toolu_nested" + strconv.Itoa(i)
			emit(p.id, hookio.PreToolUse, at, base(p.id, hookio.PreToolUse, `,"tool_name":"Agent","tool_input":{"subagent_type":"Explore","description":"Look deeper"},"tool_use_id":"`+tu+`","agent_id":"`+inAgent+`","agent_type":"general-purpose"`), 0)
			done := at.Add(300 * time.Millisecond)
			s.AgentsHistory = append(s.AgentsHistory, state.Agent{Name: "Explore", AgentID: "n" + tu, ToolUseID: tu, Description: "Look deeper",
				StartedAt: at, CompletedAt: &done, Status: state.AgentCompleted, DurationMS: 300})
			p.agents++
			p.nested++
			i++
		default:
			// Tool calls as Pre/Post/Batch triples; a triple cut by a
			// special event above just goes on after it.
			ev := []string{hookio.PreToolUse, hookio.PostToolUse, hookio.PostToolBatch}[phase%3]
			if phase%3 == 0 {
				call++
			}
			phase++
			if ev == hookio.PostToolUse && call%97 == 0 {
				ev = hookio.PostToolUseFailure
				s.Errors = append(s.Errors, state.Error{Timestamp: at, Type: state.ErrorToolFailure, Message: "Exit code 1", Context: map[string]any{"tool": "Bash"}})
			}
			tool(p.id, ev, at, call, inAgent)
			i++
		}
		for otherN*otherEvery < i && otherN < others {
			sid := otherIDs[otherN%len(otherIDs)]
			ev := []string{hookio.PreToolUse, hookio.PostToolUse, hookio.PostToolBatch}[otherN%3]
			tool(sid, ev, at, otherN, "")
			otherN++
		}
	}
	for otherN < others {
		tool(otherIDs[otherN%len(otherIDs)], hookio.PreToolUse, t0, otherN, "")
		otherN++
	}
	// Decisions: one in five events of each session got one.
	dw := w(logs.Name(logs.Decisions, ""))
	for j := 0; j < (n+others)/5; j++ {
		sid := p.id
		if j%3 == 2 {
			sid = otherIDs[j%len(otherIDs)]
		} else {
			p.decided++
		}
		rec := gate.Record{RequestID: fmt.Sprintf("%016x", j), SessionID: sid, Timestamp: t0.Add(time.Duration(j) * 250 * time.Millisecond),
			Source: []string{"requirements", "feedback-loop", "token-budget"}[j%3], Hook: hookio.PreToolUse, Decision: []string{"allow", "allow", "deny", "block"}[j%4],
			Reason: "benchmark decision " + strconv.Itoa(j), DurationMS: 0.05}
		data, _ := json.Marshal(rec)
		dw.add(data)
	}
	for _, lw := range logsOpen {
		p.logBytes += lw.close(tb)
	}
	counted := 0
	for ev, c := range p.byType {
		s.EventCounts[ev] = c
		counted += c
	}
	s.LastEvent, s.LastEventAt, s.UpdatedAt = hookio.Stop, t0.Add(time.Duration(n)*50*time.Millisecond), t0.Add(time.Duration(n)*50*time.Millisecond)
	path, _ := p.layout.StatePath(p.id)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := jsonfile.WriteJSON(path, s); err != nil {
		tb.Fatal(err)
	}
	return p
}

func addOnce(list *[]string, p string) {
	for _, x := range *list {
		if x == p {
			return
		}
	}
	*list = append(*list, p)
}

// logWriter writes a log in the recorder's layout: "[\n", entries joined by
// ",\n", "\n]\n".
type logWriter struct {
	f *os.File
	w *bufio.Writer
	n int
}

func newLogWriter(tb testing.TB, path string) *logWriter {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	lw := &logWriter{f: f, w: bufio.NewWriterSize(f, 1<<20)}
	lw.w.WriteString("[\n")
	return lw
}

func (lw *logWriter) add(line []byte) {
	if lw.n > 0 {
		lw.w.WriteString(",\n")
	}
	lw.w.Write(line)
	lw.n++
}

func (lw *logWriter) close(tb testing.TB) int64 {
	lw.w.WriteString("\n]\n")
	if err := lw.w.Flush(); err != nil {
		tb.Fatal(err)
	}
	fi, err := lw.f.Stat()
	if err != nil {
		tb.Fatal(err)
	}
	if err := lw.f.Close(); err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

// TestBenchProject checks the benchmark's data on a small instance: its
// lines are byte for byte what the recorder writes (so the fast path the
// benchmark measures is the path real logs take), and the export finds
// exactly the session's events, agents and decisions.
func TestBenchProject(t *testing.T) {
	p := genProject(t, t.TempDir(), 3000, 1500)
	n := 0
	err := logs.ScanFile(p.layout.LogPath("post_tool_use"), func(raw []byte) error {
		var e logs.Entry
		if err := json.Unmarshal(raw, &e); err != nil {
			return err
		}
		again, err := e.Encode()
		if err != nil {
			return err
		}
		if !bytes.Equal(again, raw) {
			return fmt.Errorf("generated line differs from the recorder's encoding:\n%.300s\n%.300s", raw, again)
		}
		n++
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("checked %d lines: %v", n, err)
	}
	sum, err := export.Build(context.Background(), p.layout, p.id, export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Events.Logged != p.events {
		t.Errorf("logged = %d, want %d", sum.Events.Logged, p.events)
	}
	for _, bt := range sum.Events.ByType {
		if p.byType[bt.Event] != bt.Count {
			t.Errorf("%s: %d, want %d", bt.Event, bt.Count, p.byType[bt.Event])
		}
	}
	if sum.Events.TruncatedPayloads == 0 {
		t.Error("no truncated payloads found; the generator makes some")
	}
	if got := len(sum.Decisions.Timeline); got != p.decided {
		t.Errorf("decisions = %d, want %d", got, p.decided)
	}
	nested := 0
	for _, a := range sum.Agents {
		nested += len(a.Children)
	}
	if sum.Totals.Agents != p.agents || nested != p.nested || nested == 0 {
		t.Errorf("agents %d (nested %d), want %d (nested %d)", sum.Totals.Agents, nested, p.agents, p.nested)
	}
}

// BenchmarkExport100k exports a session of 100,000 events, whose entries
// share the logs with 50,000 events of other sessions, as Markdown and as
// JSON. Target: ≤ 1 s per export (both formats). The README's benchmark
// command runs it once: go test -run '^$' -bench . -benchtime 1x ./export/...
func BenchmarkExport100k(b *testing.B) {
	const n, others = 100_000, 50_000
	t0 := time.Now()
	p := genProject(b, b.TempDir(), n, others)
	gen := time.Since(t0)
	b.SetBytes(p.logBytes)
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		sum, err := export.Build(ctx, p.layout, p.id, export.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if sum.Events.Logged != n {
			b.Fatalf("logged %d events, want %d", sum.Events.Logged, n)
		}
		if err := export.WriteMarkdown(io.Discard, []*export.Summary{sum}); err != nil {
			b.Fatal(err)
		}
		if err := export.WriteJSON(io.Discard, []*export.Summary{sum}, export.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	per := time.Since(start).Seconds() / float64(b.N)
	b.ReportMetric(per, "s/export")
	verdict := "meets"
	if per > 1 {
		verdict = "MISSES"
	}
	b.Logf("export of a %d-event session (%.0f MB of logs, %d other sessions' events; generated in %.1f s): %.3f s per export, %s the ≤ 1 s target",
		n, float64(p.logBytes)/1e6, others, gen.Seconds(), per, verdict)
}
