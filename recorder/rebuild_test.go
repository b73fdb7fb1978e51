package recorder

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/state"
)

// comparable drops what a rebuild cannot know (gates' and the registry's
// bookkeeping) and
// returns the state as JSON.
func comparable(t *testing.T, s *state.Session) string {
	t.Helper()
	c := *s
	// SectionSums frame the file a hook wrote (docs/state.md), not the
	// session: a state rebuilt in memory has none yet. The Claude Code
	// process is the hook's environment, not in the logs (RebuildState
	// keeps the recorded one: TestRebuildKeepsTheProcess).
	c.Gates, c.Notes, c.SectionSums, c.ClaudePID = nil, nil, nil, 0
	data, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// State is a cache of the logs: for every recorded Claude Code capture, a
// session's state.json rebuilt from the project's logs equals the one the
// hooks wrote, also after it was set aside or deleted, and also with
// lists longer than state.keep.
func TestRebuildEqualsRecorded(t *testing.T) {
	for _, dir := range []string{filepath.Join("testdata", "captures")} {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if len(paths) == 0 {
			t.Fatalf("no captures in %s", dir)
		}
		for _, path := range paths {
			name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
			t.Run(name, func(t *testing.T) {
				caps := readCaptures(t, path)
				p, _ := feed(t, caps, func(string) {})
				cfgPath := p.layout().ConfigPath()
				ids, err := p.layout().SessionIDs()
				if err != nil || len(ids) == 0 {
					t.Fatalf("sessions: %v %v", ids, err)
				}
				ctx := context.Background()
				for _, id := range ids {
					recorded := p.state(id)
					cfg, _ := config.Load(cfgPath)
					rebuilt, err := Rebuild(ctx, p.layout(), id, cfg)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := comparable(t, rebuilt), comparable(t, recorded); got != want {
						t.Fatalf("session %s: rebuilt state differs from the recorded one:\n%s", id, firstDiff([]byte(want), []byte(got)))
					}
					// Deleted: spcstr rebuild writes it back.
					sp, _ := p.layout().StatePath(id)
					if err := os.Remove(sp); err != nil {
						t.Fatal(err)
					}
					if _, err := RebuildState(ctx, p.layout(), id, cfg); err != nil {
						t.Fatal(err)
					}
					if got := comparable(t, p.state(id)); got != comparable(t, recorded) {
						t.Fatalf("session %s: written state differs:\n%s", id, firstDiff([]byte(comparable(t, recorded)), []byte(got)))
					}
				}
			})
		}
	}
}

// TestRebuildKeepsTheProcess: the Claude Code process the hooks recorded
// (CLAUDE_PID, else their parent; a resume's SessionStart takes the new
// one) survives spcstr rebuild, which reads only the logs.
func TestRebuildKeepsTheProcess(t *testing.T) {
	p := newProject(t)
	p.env["CLAUDE_PID"] = "4242"
	p.runAll(`{"hook_event_name":"UserPromptSubmit","session_id":"proc","prompt":"hello"}`)
	p.env["CLAUDE_PID"] = "4343" // a tool call in the same process: not taken
	p.runAll(`{"hook_event_name":"PreToolUse","session_id":"proc","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	if got := p.state("proc").ClaudePID; got != 4242 {
		t.Fatalf("recorded process %d, want 4242", got)
	}
	p.env["CLAUDE_PID"] = "4444"
	p.runAll(`{"hook_event_name":"SessionStart","session_id":"proc","source":"resume"}`)
	if got := p.state("proc").ClaudePID; got != 4444 {
		t.Fatalf("after a resume: process %d, want 4444", got)
	}
	cfg, err := config.Load(p.layout().ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RebuildState(context.Background(), p.layout(), "proc", cfg); err != nil {
		t.Fatal(err)
	}
	if got := p.state("proc").ClaudePID; got != 4444 {
		t.Errorf("after spcstr rebuild: process %d, want 4444", got)
	}
}

// Rebuilding keeps the totals of a session longer than state.keep, and a
// session with no events is an error that says so.
func TestRebuildLongSessionAndMissing(t *testing.T) {
	p := newProject(t)
	if err := os.WriteFile(p.layout().ConfigPath(), []byte("state:\n  keep: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var payloads []string
	for i := 0; i < 10; i++ {
		payloads = append(payloads,
			`{"hook_event_name":"UserPromptSubmit","session_id":"long","prompt":"p`+strings.Repeat("x", 600)+`"}`,
			`{"hook_event_name":"PostToolUseFailure","session_id":"long","tool_name":"Bash","tool_use_id":"t`+string(rune('a'+i))+`","error":"boom"}`,
			`{"hook_event_name":"Notification","session_id":"long","message":"m","notification_type":"idle_prompt"}`)
	}
	p.runAll(payloads...)
	recorded := p.state("long")
	if recorded.PromptsTotal != 10 || len(recorded.Prompts) != 3 || recorded.ErrorsTotal != 10 || recorded.NotificationsTotal != 10 {
		t.Fatalf("recorded: prompts %d/%d errors %d notifications %d", len(recorded.Prompts), recorded.PromptsTotal, recorded.ErrorsTotal, recorded.NotificationsTotal)
	}
	cfg, err := config.Load(p.layout().ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	rebuilt, err := Rebuild(context.Background(), p.layout(), "long", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := comparable(t, rebuilt), comparable(t, recorded); got != want {
		t.Fatalf("rebuilt differs:\n%s", firstDiff([]byte(want), []byte(got)))
	}
	// History: every entry, prompts whole, for the export.
	h, err := History(context.Background(), p.layout(), "long", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Prompts) != 10 || len(h.Errors) != 10 || len(h.Notifications) != 10 || len(h.Prompts[0].Prompt) != 601 || h.Prompts[0].Truncated {
		t.Errorf("history: %d prompts (first %d bytes), %d errors, %d notifications", len(h.Prompts), len(h.Prompts[0].Prompt), len(h.Errors), len(h.Notifications))
	}
	if _, err := Rebuild(context.Background(), p.layout(), "nope", cfg); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("unknown session: %v", err)
	}
	if _, err := Rebuild(context.Background(), p.layout(), "../x", cfg); !errors.Is(err, state.ErrInvalidSessionID) {
		t.Errorf("invalid id: %v", err)
	}
}
