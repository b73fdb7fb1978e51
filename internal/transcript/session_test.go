package transcript

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/state"
)

// sessionDir lays out a session's transcripts as Claude Code 2.1.330
// does: <dir>/<id>.jsonl and <dir>/<id>/subagents/agent-<agent>.jsonl.
func sessionDir(t *testing.T) (s *state.Session, subdir string) {
	t.Helper()
	dir := t.TempDir()
	s = state.New("sid", dir, time.Unix(1700000000, 0))
	s.TranscriptPath = filepath.Join(dir, "sid.jsonl")
	subdir = filepath.Join(dir, "sid", "subagents")
	if err := os.MkdirAll(subdir, 0o755); err != nil {
		t.Fatal(err)
	}
	return s, subdir
}

func assistant(id, model string, in, out, read, write, write1h int64, extra string) string {
	return fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"model":%q,"usage":{"input_tokens":%d,"output_tokens":%d,"cache_read_input_tokens":%d,"cache_creation_input_tokens":%d,"cache_creation":{"ephemeral_1h_input_tokens":%d,"ephemeral_5m_input_tokens":0}%s}}}`+"\n",
		id, model, in, out, read, write, write1h, extra)
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// Every API message counts once: the main transcript's and each subagent
// transcript's, each file from its own cursor, in the totals, by model and
// by agent; a later hook reads only what was appended.
func TestReadSessionSubagents(t *testing.T) {
	s, sub := sessionDir(t)
	s.AgentsHistory = []state.Agent{{Name: "lister", AgentID: "afg"}} // the recorder adds it at SubagentStart
	appendFile(t, s.TranscriptPath, assistant("m1", "claude-opus-5-5", 100, 10, 1000, 50, 0, ""))
	fg := filepath.Join(sub, "agent-afg.jsonl")
	appendFile(t, fg, assistant("f1", "claude-haiku-5-5", 7, 3, 0, 200, 200, ""))
	// SubagentStart names the foreground agent's transcript.
	if err := ReadSession(s, Hint{Event: "SubagentStart", AgentID: "afg", AgentPath: fg}); err != nil {
		t.Fatal(err)
	}
	// The same message again (a second content block), and a new one.
	appendFile(t, fg, assistant("f1", "claude-haiku-5-5", 7, 5, 0, 200, 200, "")+assistant("f2", "claude-haiku-5-5", 1, 1, 0, 0, 0, ""))
	// A background agent no event named yet, on another model.
	bg := filepath.Join(sub, "agent-abg.jsonl")
	appendFile(t, bg, assistant("b1", "claude-sonnet-5-5", 1000, 100, 0, 0, 0, `,"inference_geo":"us"`))
	if err := ReadSession(s, Hint{Event: "SubagentStop", AgentID: "afg", AgentPath: fg}); err != nil {
		t.Fatal(err)
	}
	if a := s.Subagents["afg"]; !a.Stopped || a.Done {
		t.Errorf("foreground agent not marked stopped (and not retired yet) at its SubagentStop: %+v", a)
	}
	// Claude Code writes the last message's line again after SubagentStop:
	// the next hook reads it (counted once) and keeps the transcript open.
	appendFile(t, fg, assistant("f2", "claude-haiku-5-5", 1, 1, 0, 0, 0, ""))
	if err := ReadSession(s, Hint{Event: "PostToolUse"}); err != nil {
		t.Fatal(err)
	}
	if s.Subagents["afg"].Done {
		t.Error("retired at an event that does not retire")
	}
	if _, ok := s.Subagents["abg"]; ok {
		t.Error("an unnamed agent was found before a folder listing")
	}
	if err := ReadSession(s, Hint{Event: "Stop"}); err != nil {
		t.Fatal(err)
	}
	// The foreground agent, unchanged since the last hook, is retired and
	// its usage went to its AgentsHistory entry.
	if a := s.Subagents["afg"]; !a.Done || len(a.Cursor.Recent) != 0 {
		t.Errorf("stopped agent not retired at Stop: %+v", a)
	}
	if e := s.FindAgent("afg"); e == nil || e.Usage["claude-haiku-5-5"].Input != 8 || s.Subagents["afg"].ByModel != nil {
		t.Errorf("retired usage not moved to the agent: %+v %+v", e, s.Subagents["afg"])
	}
	want := state.Tokens{Input: 100 + 7 + 1 + 1000, Output: 10 + 5 + 1 + 100, CacheRead: 1000, CacheCreation: 250, ContextUsed: 1150}
	if got := totals(s.Tokens); got != totals(want) {
		t.Errorf("totals %+v, want %+v", got, totals(want))
	}
	if got := s.Tokens.ByModel["claude-haiku-5-5"]; got != (state.ModelUsage{Input: 8, Output: 6, CacheCreation: 200, CacheWrite1h: 200}) {
		t.Errorf("haiku usage %+v", got)
	}
	if got := s.Tokens.ByModel["claude-sonnet-5-5+us"]; got.Input != 1000 {
		t.Errorf("the us-geo message is not under its surcharged key: %+v", s.Tokens.ByModel)
	}
	if got := s.AgentUsage("abg")["claude-sonnet-5-5+us"].Output; got != 100 {
		t.Errorf("background agent's own usage: %+v", s.Subagents["abg"])
	}
	// The agent resumes (SubagentStart again): its new messages count.
	appendFile(t, fg, assistant("f3", "claude-haiku-5-5", 2, 2, 0, 0, 0, ""))
	if err := ReadSession(s, Hint{Event: "SubagentStart", AgentID: "afg", AgentPath: fg}); err != nil {
		t.Fatal(err)
	}
	if got := s.AgentUsage("afg")["claude-haiku-5-5"].Input; got != 10 || s.Subagents["afg"].Done {
		t.Errorf("resumed agent: input %d, %+v", got, s.Subagents["afg"])
	}
	want.Input += 2
	want.Output += 2
	if got := totals(s.Tokens); got != totals(want) {
		t.Errorf("after the resume: totals %+v, want %+v", got, totals(want))
	}
	// Nothing appended: nothing changes.
	before := totals(s.Tokens)
	if err := ReadSession(s, Hint{Event: "PreToolUse"}); err != nil || totals(s.Tokens) != before {
		t.Errorf("a hook with nothing new changed the totals: %v %+v", err, s.Tokens)
	}
}

// A subagent path outside the session's subagents folder, or a hostile
// agent id, is never read.
func TestReadSessionPathOutsideFolder(t *testing.T) {
	s, sub := sessionDir(t)
	outside := filepath.Join(t.TempDir(), "agent-evil.jsonl")
	appendFile(t, outside, assistant("e1", "claude-opus-5-5", 1e6, 0, 0, 0, 0, ""))
	for _, h := range []Hint{
		{Event: "SubagentStop", AgentID: "evil", AgentPath: outside},
		{Event: "SubagentStop", AgentID: "evil", AgentPath: filepath.Join(sub, "..", "..", "agent-evil.jsonl")},
		{Event: "SubagentStop", AgentID: "../../x"},
		{Event: "SubagentStop", AgentID: strings.Repeat("a", 65)},
	} {
		if err := ReadSession(s, h); err != nil {
			t.Fatal(err)
		}
	}
	if s.Tokens.Input != 0 || len(s.Subagents) != 0 {
		t.Errorf("read outside the session's folder: %+v %+v", s.Tokens, s.Subagents)
	}
}

// Absurd usage is skipped and counted; it never overflows the totals.
func TestAbsurdUsage(t *testing.T) {
	s, _ := sessionDir(t)
	appendFile(t, s.TranscriptPath,
		assistant("ok", "claude-opus-5-5", 5, 5, 5, 5, 0, "")+
			`{"type":"assistant","message":{"id":"big","model":"m","usage":{"input_tokens":9200000000000000000,"output_tokens":1}}}`+"\n"+
			`{"type":"assistant","message":{"id":"exp","model":"m","usage":{"input_tokens":9.2e18,"output_tokens":1}}}`+"\n"+
			`{"type":"assistant","message":{"id":"neg","model":"m","usage":{"input_tokens":-5,"output_tokens":1}}}`+"\n"+
			`{"type":"assistant","message":{"id":"neg1h","model":"m","usage":{"input_tokens":1,"cache_creation":{"ephemeral_1h_input_tokens":-1}}}}`+"\n")
	if err := ReadSession(s, Hint{}); err != nil {
		t.Fatal(err)
	}
	if s.Tokens.Input != 5 || s.Tokens.Skipped != 4 {
		t.Errorf("tokens %+v, want input 5 and 4 skipped", s.Tokens)
	}
	// Totals near the maximum saturate rather than wrap negative.
	s.Tokens.Input = math.MaxInt64 - 1
	appendFile(t, s.TranscriptPath, assistant("ok2", "claude-opus-5-5", 5, 5, 5, 5, 0, ""))
	if err := ReadSession(s, Hint{}); err != nil {
		t.Fatal(err)
	}
	if s.Tokens.Input != math.MaxInt64 {
		t.Errorf("input tokens %d, want saturated at %d", s.Tokens.Input, int64(math.MaxInt64))
	}
}

// Claude Code's cost-state line is kept (the latest one wins); a damaged
// one is ignored.
func TestCostStateLine(t *testing.T) {
	s, _ := sessionDir(t)
	appendFile(t, s.TranscriptPath,
		`{"type":"cost-state","totalCostUSD":0.01,"modelUsage":{}}`+"\n"+
			`{"type":"cost-state","sessionId":"sid","totalCostUSD":0.038442,"totalAPIDuration":1423,"modelUsage":{"claude-opus-5-5":{"inputTokens":2803,"outputTokens":401,"thinkingTokens":0,"cacheReadInputTokens":17800,"cacheCreationInputTokens":3130,"cacheCreationEphemeral5mInputTokens":0,"cacheCreationEphemeral1hInputTokens":0,"webSearchRequests":0,"costUSD":0.038442}},"hasUnknownModelCost":false}`+"\n"+
			`{"type":"cost-state","totalCostUSD":-1,"modelUsage":{}}`+"\n"+
			`{"type":"cost-state","totalCostUSD":1,"modelUsage":{"x":{"inputTokens":-3}}}`+"\n")
	if err := ReadSession(s, Hint{}); err != nil {
		t.Fatal(err)
	}
	c := s.ClaudeCost
	if c == nil || c.USD != 0.038442 || c.UnknownModel || c.ByModel["claude-opus-5-5"] != (state.ClaudeModelCost{Input: 2803, Output: 401, CacheRead: 17800, CacheCreation: 3130, USD: 0.038442}) {
		t.Errorf("claude cost %+v", c)
	}
}

// A running agent's transcript is read from where the previous hook left
// it, however many messages it has (more than a cursor remembers).
func TestSubagentIncremental(t *testing.T) {
	s, sub := sessionDir(t)
	p := filepath.Join(sub, "agent-alot.jsonl")
	var b strings.Builder
	for i := 0; i < 40; i++ {
		b.WriteString(assistant(fmt.Sprintf("m%02d", i), "claude-opus-5-5", 1, 1, 0, 0, 0, ""))
	}
	appendFile(t, p, b.String())
	if err := ReadSession(s, Hint{Event: "SubagentStart", AgentID: "alot", AgentPath: p}); err != nil {
		t.Fatal(err)
	}
	off := s.Subagents["alot"].Cursor.Offset
	appendFile(t, p, assistant("m40", "claude-opus-5-5", 1, 1, 0, 0, 0, ""))
	for range 3 {
		if err := ReadSession(s, Hint{Event: "PostToolUse"}); err != nil {
			t.Fatal(err)
		}
	}
	if s.Tokens.Input != 41 || s.Subagents["alot"].Cursor.Offset <= off {
		t.Errorf("input %d (want 41), offset %d after %d", s.Tokens.Input, s.Subagents["alot"].Cursor.Offset, off)
	}
}

// A fork's transcript starts with its parent's messages, copied with the
// parent's message ids and a requestSessionId naming the parent: they
// count in the fork's totals (Claude Code counts them in the fork's
// figure) and in Inherited, once per message, and ForkedFrom names the
// parent. The fork's own messages, and a requestSessionId that names the
// session itself or cannot be a session id, are not inherited.
func TestReadSessionFork(t *testing.T) {
	s, _ := sessionDir(t)
	copied := func(id string, out int64, from string) string {
		line := assistant(id, "claude-opus-5-5", 10, out, 0, 0, 0, "")
		return strings.Replace(line, `{"type":"assistant",`, `{"type":"assistant","sessionId":"sid","requestSessionId":`+from+`,`, 1)
	}
	appendFile(t, s.TranscriptPath,
		copied("p1", 5, `"parent-1"`)+copied("p1", 7, `"parent-1"`)+ // one message, two content blocks
			copied("p2", 3, `"parent-1"`)+
			copied("own-stamped", 1, `"sid"`)+copied("bogus", 1, `"../x"`)+copied("num", 1, `42`))
	if err := ReadSession(s, Hint{Event: "SessionStart"}); err != nil {
		t.Fatal(err)
	}
	appendFile(t, s.TranscriptPath, assistant("f1", "claude-opus-5-5", 100, 20, 0, 0, 0, ""))
	if err := ReadSession(s, Hint{Event: "Stop"}); err != nil {
		t.Fatal(err)
	}
	if s.ForkedFrom != "parent-1" {
		t.Errorf("forked_from %q", s.ForkedFrom)
	}
	if got, want := s.Inherited["claude-opus-5-5"], (state.ModelUsage{Input: 20, Output: 10}); got != want {
		t.Errorf("inherited %+v, want %+v", got, want)
	}
	if s.Tokens.Input != 150 || s.Tokens.Output != 33 {
		t.Errorf("totals input %d output %d, want 150 and 33", s.Tokens.Input, s.Tokens.Output)
	}
}

// A message id seen in two transcripts of one session counts once: a
// subagent transcript that repeats a message of the main transcript (or of
// another agent's) adds nothing for it, and still counts its own.
func TestMessageInTwoTranscripts(t *testing.T) {
	s, sub := sessionDir(t)
	appendFile(t, s.TranscriptPath, assistant("m1", "claude-opus-5-5", 100, 10, 0, 0, 0, ""))
	a := filepath.Join(sub, "agent-a1.jsonl")
	appendFile(t, a, assistant("m1", "claude-opus-5-5", 100, 10, 0, 0, 0, "")+assistant("a1", "claude-haiku-5-5", 5, 1, 0, 0, 0, ""))
	b := filepath.Join(sub, "agent-b1.jsonl")
	appendFile(t, b, assistant("a1", "claude-haiku-5-5", 5, 1, 0, 0, 0, "")+assistant("b1", "claude-haiku-5-5", 7, 1, 0, 0, 0, ""))
	if err := ReadSession(s, Hint{Event: "SubagentStart", AgentID: "a1", AgentPath: a}); err != nil {
		t.Fatal(err)
	}
	if err := ReadSession(s, Hint{Event: "SubagentStart", AgentID: "b1", AgentPath: b}); err != nil {
		t.Fatal(err)
	}
	if got := s.Tokens.Input; got != 100+5+7 {
		t.Errorf("input %d, want %d: a repeated message counted twice", got, 100+5+7)
	}
	if got := s.AgentUsage("a1")["claude-haiku-5-5"].Input; got != 5 {
		t.Errorf("agent a1's own input %d, want 5", got)
	}
}

// A hook leaves the finished agents encoded (state.SectionDoneAgents):
// an event that names a finished agent, a Stop that lists the subagents
// folder, and a resume must still find it, never track it again from the
// start of its transcript (its usage would count twice).
func TestFinishedAgentsLeftEncodedCountOnce(t *testing.T) {
	s, sub := sessionDir(t)
	root := filepath.Dir(s.TranscriptPath)
	s.ProjectDir = root
	appendFile(t, s.TranscriptPath, assistant("m1", "claude-opus-5-5", 100, 10, 0, 0, 0, ""))
	fg := filepath.Join(sub, "agent-afg.jsonl")
	appendFile(t, fg, assistant("f1", "claude-haiku-5-5", 7, 3, 0, 0, 0, ""))
	for _, h := range []Hint{{Event: "SubagentStart", AgentID: "afg", AgentPath: fg}, {Event: "SubagentStop", AgentID: "afg", AgentPath: fg}, {Event: "Stop"}} {
		if err := ReadSession(s, h); err != nil {
			t.Fatal(err)
		}
	}
	if !s.Subagents["afg"].Done {
		t.Fatalf("agent not retired: %+v", s.Subagents["afg"])
	}
	want := totals(s.Tokens)
	layout := state.Layout{Root: root}
	if err := os.MkdirAll(layout.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, now := context.Background(), time.Unix(1700000100, 0)
	hook := func(h Hint) {
		t.Helper()
		lazy := state.UpdateOptions{Lazy: state.AllSections} // as a hook: finished agents left encoded
		if _, err := layout.Update(ctx, "sid", now, lazy, func(cur *state.Session, fresh bool) error {
			if fresh {
				*cur = *s
				return nil
			}
			return ReadSession(cur, h)
		}); err != nil {
			t.Fatal(err)
		}
	}
	hook(Hint{}) // writes the session
	for _, h := range []Hint{{Event: "PreToolUse", AgentID: "afg", AgentPath: fg}, {Event: "Stop"}, {Event: "PostToolUse"}, {Event: "SessionStart"}} {
		hook(h)
		got, err := layout.Load("sid")
		if err != nil {
			t.Fatal(err)
		}
		if totals(got.Tokens) != want || !got.Subagents["afg"].Done {
			t.Fatalf("after %s: totals %+v (want %+v), agent %+v", h.Event, totals(got.Tokens), want, got.Subagents["afg"])
		}
	}
	// Resumed: only what it appends counts.
	appendFile(t, fg, assistant("f2", "claude-haiku-5-5", 2, 2, 0, 0, 0, ""))
	hook(Hint{Event: "SubagentStart", AgentID: "afg", AgentPath: fg})
	got, err := layout.Load("sid")
	if err != nil {
		t.Fatal(err)
	}
	want.Input, want.Output = want.Input+2, want.Output+2
	if totals(got.Tokens) != want || got.Subagents["afg"].Done {
		t.Fatalf("after the resume: totals %+v (want %+v), agent %+v", totals(got.Tokens), want, got.Subagents["afg"])
	}
}
