package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

var t0 = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

func entry(t testing.TB, id, event string, at time.Time, input string) []byte {
	t.Helper()
	e := logs.Entry{Timestamp: at, SessionID: id, Event: event, Input: json.RawMessage(input)}
	b, err := e.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseEvent(t *testing.T) {
	cases := []struct {
		name, raw string
		ok        bool
		want      Event
	}{
		{"bash", `{"timestamp":"2026-01-15T12:00:00Z","session_id":"s1","event":"PreToolUse","input":{"tool_name":"Bash","tool_input":{"command":"go test\n./..."}}}`,
			true, Event{At: t0, Session: "s1", Event: "PreToolUse", Tool: "Bash", Detail: "go test ./..."}},
		{"failure", `{"timestamp":"2026-01-15T12:00:00Z","session_id":"s1","event":"PostToolUseFailure","input":{"tool_name":"Bash","tool_input":{"command":"false"},"error":"Exit code 1"}}`,
			true, Event{At: t0, Session: "s1", Event: "PostToolUseFailure", Tool: "Bash", Detail: "false", Error: "Exit code 1", Failed: true}},
		{"subagent tool", `{"timestamp":"2026-01-15T12:00:00Z","session_id":"s1","event":"PostToolUse","input":{"tool_name":"Read","agent_type":"reviewer","tool_input":{"file_path":"/p/a.go"}}}`,
			true, Event{At: t0, Session: "s1", Event: "PostToolUse", Tool: "Read", Agent: "reviewer", Detail: "/p/a.go"}},
		{"agent", `{"timestamp":"2026-01-15T12:00:00Z","session_id":"s1","event":"PreToolUse","input":{"tool_name":"Agent","tool_input":{"subagent_type":"tester","description":"Run tests"}}}`,
			true, Event{At: t0, Session: "s1", Event: "PreToolUse", Tool: "Agent", Detail: "tester: Run tests"}},
		{"prompt", `{"timestamp":"2026-01-15T12:00:00Z","session_id":"s1","event":"UserPromptSubmit","input":{"prompt":"hello"}}`,
			true, Event{At: t0, Session: "s1", Event: "UserPromptSubmit", Detail: "hello"}},
		{"subagent stop", `{"timestamp":"2026-01-15T12:00:00Z","session_id":"s1","event":"SubagentStop","input":{"agent_type":"reviewer","last_assistant_message":"REVIEW_APPROVED ok"}}`,
			true, Event{At: t0, Session: "s1", Event: "SubagentStop", Detail: "reviewer REVIEW_APPROVED ok"}},
		{"decision", `{"request_id":"r","session_id":"s1","timestamp":"2026-01-15T12:00:00Z","source":"requirements","hook":"PreToolUse","decision":"deny","reason":"run /plan first"}`,
			true, Event{At: t0, Session: "s1", Event: "Decision", Tool: "requirements", Detail: "deny PreToolUse: run /plan first", Failed: true}},
		{"decision that failed open", `{"request_id":"r","session_id":"s1","timestamp":"2026-01-15T12:00:00Z","source":"requirements","hook":"PreToolUse","decision":"allow","reason":"gate-error","enforcement":"failed-open","error":"lock"}`,
			true, Event{At: t0, Session: "s1", Event: "Decision", Tool: "requirements", Detail: "allow PreToolUse (failed open): lock", FailedOpen: true}},
		{"decision with its own message", `{"request_id":"r","session_id":"s1","timestamp":"2026-01-15T12:00:00Z","source":"strategy:ship","hook":"Stop","decision":"block","reason":"exit-2","message":"tests fail: fix them","enforcement":"enforced"}`,
			true, Event{At: t0, Session: "s1", Event: "Decision", Tool: "strategy:ship", Detail: "block Stop (kept working): tests fail: fix them", Failed: true}},
		{"block that gave way to the stop cap", `{"request_id":"r","session_id":"s1","timestamp":"2026-01-15T12:00:00Z","source":"feedback","hook":"Stop","decision":"escalated","reason":"escalated:pending","enforcement":"gave-way"}`,
			true, Event{At: t0, Session: "s1", Event: "Decision", Tool: "feedback", Detail: "escalated Stop (gave way): escalated:pending"}},
		{"wrong types", `{"timestamp":"2026-01-15T12:00:00Z","session_id":"s1","event":"PreToolUse","input":{"tool_name":5,"tool_input":"x"}}`,
			true, Event{At: t0, Session: "s1", Event: "PreToolUse"}},
		{"wrong envelope type", `{"timestamp":"2026-01-15T12:00:00Z","session_id":"s1","event":"Stop","outcome":7}`,
			true, Event{At: t0, Session: "s1", Event: "Stop"}},
		{"no session", `{"timestamp":"2026-01-15T12:00:00Z","event":"Stop"}`, false, Event{}},
		{"not json", `{"timestamp":`, false, Event{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ParseEvent([]byte(c.raw))
			if (got.Gate != nil) != (got.Event == "Decision") {
				t.Errorf("decision record %v for event %q", got.Gate, got.Event)
			}
			got.Gate = nil
			if ok != c.ok || ok && got != c.want {
				t.Fatalf("got %+v %v, want %+v %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestLogFile(t *testing.T) {
	for name, want := range map[string]bool{
		"pre_tool_use.json": true, "decisions.json": true, "pre_tool_use.1.json": false,
		".pre_tool_use.json.lock": false, "repairs.json": false, "rejected.json": false, "notes.txt": false,
	} {
		if got := LogFile(name); got != want {
			t.Errorf("LogFile(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestTailReadsOnlyTheEndThenNewEntries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pre_tool_use.json")
	ctx := context.Background()
	// About 600 KB: more than the startup window.
	pad := strings.Repeat("x", 500)
	for i := range 1200 {
		b := entry(t, fmt.Sprintf("s%d", i%3), "PreToolUse", t0.Add(time.Duration(i)*time.Second),
			fmt.Sprintf(`{"tool_name":"Bash","tool_input":{"command":"echo %d %s"}}`, i, pad))
		if err := logs.Append(ctx, path, b, logs.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	evs, offs := TailStart(dir)
	if len(evs) == 0 || len(evs) >= 1200 {
		t.Fatalf("startup tail read %d entries, want the last window only", len(evs))
	}
	if last := evs[len(evs)-1]; !strings.HasPrefix(last.Detail, "echo 1199 ") {
		t.Fatalf("last entry %q", last.Detail)
	}
	if err := logs.Append(ctx, path, entry(t, "s9", "PreToolUse", t0.Add(time.Hour), `{"tool_name":"Read","tool_input":{"file_path":"new.go"}}`), logs.Options{}); err != nil {
		t.Fatal(err)
	}
	more, next := TailNew([]string{path}, offs)
	if len(more) != 1 || more[0].Detail != "new.go" || next[path] <= offs[path] {
		t.Fatalf("TailNew got %+v offsets %d→%d", more, offs[path], next[path])
	}
	again, _ := TailNew([]string{path}, next)
	if len(again) != 0 {
		t.Fatalf("nothing new, yet got %d entries", len(again))
	}
	// History digs further back for one session.
	hist := History(dir, "s1", 1000, 4<<20)
	if len(hist) != 400 {
		t.Fatalf("history found %d entries of s1, want 400", len(hist))
	}
	for _, e := range hist {
		if e.Session != "s1" {
			t.Fatalf("history returned %s's entry", e.Session)
		}
	}
	if lim := History(dir, "s1", 1000, 200<<10); len(lim) >= 400 || len(lim) == 0 {
		t.Fatalf("history bounded to 200 KB read %d entries", len(lim))
	}
}

func TestTailTornLog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stop.json")
	ctx := context.Background()
	for i := range 3 {
		if err := logs.Append(ctx, path, entry(t, "s1", "Stop", t0.Add(time.Duration(i)*time.Second), `{}`), logs.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	fi, _ := os.Stat(path)
	f, _ := os.OpenFile(path, os.O_RDWR, 0)
	f.WriteAt([]byte(",\n{\"timestamp\":\"2026-01-15T12:00:09Z\",\"sess"), fi.Size()-3)
	f.Close()
	evs, offs := TailStart(dir)
	if len(evs) != 3 {
		t.Fatalf("torn log: %d entries, want the 3 complete ones", len(evs))
	}
	// The next append repairs the tail; the follower sees only the new entry.
	if err := logs.Append(ctx, path, entry(t, "s1", "Stop", t0.Add(time.Minute), `{"reason":"after repair"}`), logs.Options{}); err != nil {
		t.Fatal(err)
	}
	more, _ := TailNew([]string{path}, offs)
	if len(more) != 1 || more[0].Detail != "after repair" {
		t.Fatalf("after repair got %+v", more)
	}
}

func TestLoadSessionDamaged(t *testing.T) {
	l := state.Layout{Root: t.TempDir()}
	os.MkdirAll(l.SessionsDir(), 0o755)
	// Folder without state.
	d, _ := l.SessionDir("nostate")
	os.MkdirAll(d, 0o755)
	sum, s := LoadSession(l, "nostate", t0)
	if s != nil || sum.Damaged != "no state.json yet" || !sum.Loaded {
		t.Fatalf("no state: %+v", sum)
	}
	// Truncated state.
	p, _ := l.StatePath("trunc")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"session_id":"trunc","status":"work`), 0o644)
	sum, s = LoadSession(l, "trunc", t0)
	if s != nil || !strings.Contains(sum.Damaged, "unreadable") || strings.Contains(sum.Damaged, p) {
		t.Fatalf("truncated: %+v", sum)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal("the reader moved or removed a damaged state: ", err)
	}
	// A 10 MB prompt is kept to MaxText.
	big := state.New("big", l.Root, t0)
	big.Prompts = append(big.Prompts, state.Prompt{Timestamp: t0, Prompt: strings.Repeat("é", 5<<20)})
	bp, _ := l.StatePath("big")
	os.MkdirAll(filepath.Dir(bp), 0o755)
	if err := jsonfile.WriteJSON(bp, big); err != nil {
		t.Fatal(err)
	}
	sum, s = LoadSession(l, "big", t0)
	if s == nil || len(s.Prompts[0].Prompt) > MaxText || !s.Prompts[0].Truncated || len(sum.LastPrompt) > 200 {
		t.Fatalf("huge prompt kept %d bytes", len(s.Prompts[0].Prompt))
	}
}

func TestDisplayStatus(t *testing.T) {
	reg := registry.File{Sessions: map[string]registry.Entry{
		registry.ShortID("live-session"): {PPID: 10},
		registry.ShortID("dead-session"): {PPID: 11},
	}}
	alive := func(pid int) bool { return pid == 10 }
	cases := []struct {
		id, status, want string
		loaded           bool
		pid              int // recorded in state.json
	}{
		{"live-session", state.StatusWorking, StatusWorking, true, 0},
		{"live-session", state.StatusNeedsInput, StatusPermission, true, 0},
		{"live-session", state.StatusWaiting, StatusIdle, true, 0},
		{"dead-session", state.StatusWaiting, StatusGone, true, 0},
		{"dead-session", state.StatusEnded, StatusEnded, true, 0},
		// The registry's entry wins over an older recorded process.
		{"live-session", state.StatusWorking, StatusWorking, true, 11},
		// No registry entry nor recorded process: spcstr cannot tell (not "stale").
		{"unregistered-session", state.StatusWorking, StatusUnknown, true, 0},
		{"unregistered-session", state.StatusEnded, StatusEnded, true, 0},
		// No registry entry (the next session's start dropped it): the
		// process state.json recorded tells.
		{"unregistered-session", state.StatusWorking, StatusGone, true, 11},
		{"unregistered-session", state.StatusWaiting, StatusIdle, true, 10},
		{"unregistered-session", state.StatusEnded, StatusEnded, true, 11},
		{"live-session", "", StatusUnknown, false, 0},
	}
	for _, c := range cases {
		got := DisplayStatus(Summary{ID: c.id, Status: c.status, Loaded: c.loaded, ClaudePID: c.pid}, reg, alive)
		if got != c.want {
			t.Errorf("%s %s: %s, want %s", c.id, c.status, got, c.want)
		}
	}
}

// TestReadTextIsSanitised checks that untrusted text is made safe to print
// as it is read, so that no pane has to: a state's strings and a log
// entry's fields lose their escape sequences and control characters.
func TestReadTextIsSanitised(t *testing.T) {
	l := state.Layout{Root: t.TempDir()}
	s := state.New("evil", l.Root, t0)
	s.Branch = "\x1b]0;pwned\x07main"
	s.Model = "opus\x1b[2J"
	s.Prompts = []state.Prompt{{Timestamp: t0, Prompt: "hi\x1b[31m red\nnext"}}
	s.Errors = []state.Error{{Timestamp: t0, Type: "tool\x00", Message: "bad\u009b31mthing"}}
	s.Files.Read = []string{"a\x1b[1mb.go"}
	s.ToolsUsed = map[string]int{"Bash": 1, "Bash\x07": 2}
	p, _ := l.StatePath("evil")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := jsonfile.WriteJSON(p, s); err != nil {
		t.Fatal(err)
	}
	sum, got := LoadSession(l, "evil", t0)
	if got == nil {
		t.Fatalf("not read: %+v", sum)
	}
	checks := map[string][2]string{
		"branch":  {got.Branch, "main"},
		"summary": {sum.Branch, "main"},
		"model":   {got.Model, "opus"},
		"prompt":  {got.Prompts[0].Prompt, "hi red next"},
		"error":   {got.Errors[0].Type + " " + got.Errors[0].Message, "tool badthing"},
		"file":    {got.Files.Read[0], "ab.go"},
	}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s: %q, want %q", name, c[0], c[1])
		}
	}
	if got.ToolsUsed["Bash"] != 3 || len(got.ToolsUsed) != 1 {
		t.Errorf("tool counts %v, want Bash:3", got.ToolsUsed)
	}
	ev, ok := ParseEvent([]byte(`{"timestamp":"2026-01-15T12:00:00Z","session_id":"s1","event":"PreToolUse","input":{"tool_name":"Ba\u001b[5msh","tool_input":{"command":"echo \u001b]52;c;Zm9v\u0007hi"}}}`))
	if !ok || ev.Tool != "Bash" || ev.Detail != "echo hi" {
		t.Errorf("event %+v", ev)
	}
}
