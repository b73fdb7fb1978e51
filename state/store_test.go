package state

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
)

var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

func TestUpdateCreatedFlag(t *testing.T) {
	l := Layout{Root: t.TempDir()}
	ctx := context.Background()
	var calls []bool
	for i := 0; i < 3; i++ {
		s, err := l.Update(ctx, "sess-1", t0.Add(time.Duration(i)*time.Minute), UpdateOptions{Keep: 0}, func(s *Session, created bool) error {
			calls = append(calls, created)
			s.ToolsUsed["Bash"]++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if s.ToolsUsed["Bash"] != i+1 {
			t.Fatalf("update %d: tools = %v", i, s.ToolsUsed)
		}
	}
	if calls[0] != true || calls[1] != false || calls[2] != false {
		t.Errorf("created flags = %v, want [true false false]", calls)
	}
	// The folder holds the state, its lock and the spare it is written
	// through (safefs.ReplaceViaSpare); no temp file is left.
	dir, _ := l.SessionDir("sess-1")
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got, want := strings.Join(names, " "), ".state.json.lock .state.json.spare state.json"; got != want {
		t.Errorf("session folder holds %q, want %q", got, want)
	}
	s, err := l.Load("sess-1")
	if err != nil {
		t.Fatal(err)
	}
	if s.SessionID != "sess-1" || !s.CreatedAt.Equal(t0) || s.Version != SchemaVersion || s.ProjectDir != l.Root {
		t.Errorf("loaded state: id=%q created=%v version=%d project=%q", s.SessionID, s.CreatedAt, s.Version, s.ProjectDir)
	}
}

func TestUpdateErrorWritesNothing(t *testing.T) {
	l := Layout{Root: t.TempDir()}
	boom := errors.New("boom")
	_, err := l.Update(context.Background(), "s", t0, UpdateOptions{Keep: 0}, func(s *Session, created bool) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	p, _ := l.StatePath("s")
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("state.json written despite error: %v", err)
	}
}

func TestUpdateInvalidID(t *testing.T) {
	root := t.TempDir()
	l := Layout{Root: root}
	for _, id := range []string{"../escape", "/abs", "a\x00", strings.Repeat("z", 300), ".."} {
		called := false
		_, err := l.Update(context.Background(), id, t0, UpdateOptions{Keep: 0}, func(*Session, bool) error { called = true; return nil })
		if !errors.Is(err, ErrInvalidSessionID) || called {
			t.Errorf("Update(%q): err=%v called=%v", id, err, called)
		}
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 0 {
		t.Errorf("invalid ids created files: %v", entries)
	}
}

// A state.json that does not parse is set aside, byte for byte, and never
// overwritten; the new state says where the old one went.
func TestUpdateCorruptStateSetAside(t *testing.T) {
	for name, content := range map[string]string{
		"truncated":  `{"session_id":"s","tools_used":{"Bash":`,
		"garbage":    "\x00\x01not json",
		"empty":      "",
		"array":      `[1,2,3]`,
		"wrong type": `{"session_id":"s","tools_used":"lots"}`,
		"trailing":   `{"session_id":"s"} extra`,
	} {
		t.Run(name, func(t *testing.T) {
			l := Layout{Root: t.TempDir()}
			p, _ := l.StatePath("s")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			var created bool
			s, err := l.Update(context.Background(), "s", t0, UpdateOptions{Keep: 0}, func(s *Session, c bool) error {
				created = c
				s.ToolsUsed["Read"]++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !created {
				t.Error("a set-aside state is not reported as created")
			}
			if len(s.Errors) != 1 || s.Errors[0].Type != ErrorSpcstr || !strings.Contains(s.Errors[0].Message, "set aside") {
				t.Errorf("errors = %+v", s.Errors)
			}
			asides, _ := filepath.Glob(p + ".corrupt-*")
			if len(asides) != 1 {
				t.Fatalf("set-aside files: %v", asides)
			}
			kept, _ := os.ReadFile(asides[0])
			if string(kept) != content {
				t.Errorf("set-aside file changed: %q", kept)
			}
			// The next update reads the new state; nothing more is set aside.
			s, err = l.Update(context.Background(), "s", t0, UpdateOptions{Keep: 0}, func(s *Session, c bool) error {
				if c {
					t.Error("fresh state reported as created again")
				}
				s.ToolsUsed["Read"]++
				return nil
			})
			if err != nil || s.ToolsUsed["Read"] != 2 {
				t.Fatalf("second update: %v %v", s.ToolsUsed, err)
			}
			asides, _ = filepath.Glob(p + ".corrupt-*")
			if len(asides) != 1 {
				t.Errorf("set-aside files after second update: %v", asides)
			}
		})
	}
}

// A state.json that parses but lacks the basics (hand-edited, "{}",
// "null", an older writer) is completed, not trusted blindly.
func TestUpdateIncompleteState(t *testing.T) {
	for name, content := range map[string]string{
		"empty object": `{}`,
		"null":         `null`,
		"null fields":  `{"session_id":"s","agents":null,"files":{"new":null},"tools_used":null,"errors":null,"event_counts":null}`,
		"other id":     `{"session_id":"someone-else","created_at":"2026-01-01T00:00:00Z"}`,
	} {
		t.Run(name, func(t *testing.T) {
			l := Layout{Root: t.TempDir()}
			p, _ := l.StatePath("s")
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := l.Update(context.Background(), "s", t0, UpdateOptions{Keep: 0}, func(s *Session, created bool) error {
				s.ToolsUsed["Bash"]++ // must not panic on a nil map
				s.Files.New = append(s.Files.New, "x")
				s.EventCounts["Stop"]++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if s.SessionID != "s" {
				t.Errorf("session_id = %q, want the folder's id", s.SessionID)
			}
			if s.CreatedAt.IsZero() {
				t.Error("created_at left zero")
			}
			if s.Version != SchemaVersion {
				t.Errorf("version = %d", s.Version)
			}
			data, _ := os.ReadFile(p)
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{"agents", "agents_history", "tools_used", "errors", "prompts", "notifications", "starts", "event_counts"} {
				if m[key] == nil {
					t.Errorf("%s written as null", key)
				}
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	var s Session
	s.Normalize()
	if s.Agents == nil || s.AgentsHistory == nil || s.Files.New == nil || s.Files.Edited == nil ||
		s.Files.Read == nil || s.ToolsUsed == nil || s.Errors == nil || s.Prompts == nil ||
		s.Notifications == nil || s.Starts == nil || s.EventCounts == nil {
		t.Fatalf("Normalize left nil collections: %+v", s)
	}
	// Existing data is kept.
	s2 := Session{ToolsUsed: map[string]int{"Bash": 3}, Files: Files{Read: []string{"a"}}}
	s2.Normalize()
	if s2.ToolsUsed["Bash"] != 3 || len(s2.Files.Read) != 1 {
		t.Errorf("Normalize dropped data: %+v", s2)
	}
	// A new session encodes with empty arrays and objects, never null.
	data, _ := json.Marshal(New("x", "/p", t0))
	if strings.Contains(string(data), "null") {
		t.Errorf("new session has nulls: %s", data)
	}
}

func TestLoad(t *testing.T) {
	l := Layout{Root: t.TempDir()}
	if _, err := l.Load("nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := l.Load("../x"); !errors.Is(err, ErrInvalidSessionID) {
		t.Errorf("invalid id: %v", err)
	}
	p, _ := l.StatePath("bad")
	_ = os.MkdirAll(filepath.Dir(p), 0o755)
	_ = os.WriteFile(p, []byte(`{"session_id":`), 0o644)
	if _, err := l.Load("bad"); !errors.Is(err, jsonfile.ErrCorrupt) {
		t.Errorf("corrupt: %v", err)
	}
	// Readers never move files: only writers set aside.
	if _, err := os.Stat(p); err != nil {
		t.Errorf("Load moved the corrupt file: %v", err)
	}
	p, _ = l.StatePath("old")
	_ = os.MkdirAll(filepath.Dir(p), 0o755)
	_ = os.WriteFile(p, []byte(`{"session_id":"old","tools_used":null}`), 0o644)
	s, err := l.Load("old")
	if err != nil || s.ToolsUsed == nil || s.Files.Read == nil {
		t.Errorf("Load does not normalize: %+v, %v", s, err)
	}
}

// Parallel writers of one session never lose an update.
func TestUpdateParallel(t *testing.T) {
	l := Layout{Root: t.TempDir()}
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := l.Update(context.Background(), "par", t0, UpdateOptions{Keep: 0}, func(s *Session, created bool) error {
				s.ToolsUsed["Bash"]++
				s.Files.Read = append(s.Files.Read, filepath.Join("f", string(rune('a'+i%26)), strings.Repeat("x", i)))
				return nil
			})
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := l.Load("par")
	if err != nil {
		t.Fatal(err)
	}
	if s.ToolsUsed["Bash"] != n || len(s.Files.Read) != n {
		t.Errorf("lost updates: tools=%d files=%d, want %d", s.ToolsUsed["Bash"], len(s.Files.Read), n)
	}
}

func TestSessionHelpers(t *testing.T) {
	s := New("x", "/p", t0)
	s.ToolsUsed["Bash"], s.ToolsUsed["Read"] = 2, 3
	if s.ToolCalls() != 5 {
		t.Errorf("ToolCalls = %d", s.ToolCalls())
	}
	s.AgentsHistory = append(s.AgentsHistory, Agent{Name: "a", AgentID: "id1"}, Agent{Name: "b"})
	if a := s.FindAgent("id1"); a == nil || a.Name != "a" {
		t.Errorf("FindAgent(id1) = %+v", a)
	}
	if s.FindAgent("") != nil || s.FindAgent("nope") != nil {
		t.Error("FindAgent matched an empty or unknown id")
	}
	if !s.Note("k") || s.Note("k") || !s.Notes["k"] {
		t.Error("Note is not once-only")
	}
	tok := Tokens{ContextUsed: 50_000, ContextWindow: 200_000}
	if tok.ContextPercent() != 25 || (Tokens{ContextUsed: 5}).ContextPercent() != 0 {
		t.Error("ContextPercent")
	}
}
