package watch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

func next(t *testing.T, w *Watcher) Change {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, ok := w.Next(ctx)
	if !ok {
		t.Fatal("no change within 5 s")
	}
	return c
}

// waitFor reads changes until done says it has seen what it waits for
// (a condition, not a time window: under load a change can come late),
// and fails after a generous deadline.
func waitFor(t *testing.T, w *Watcher, what string, done func(Change) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		c, ok := w.Next(ctx)
		if !ok {
			t.Fatalf("%s: not reported within 30 s", what)
		}
		if done(c) {
			return
		}
	}
}

// drain collects changes until none arrives for quiet.
func drain(w *Watcher, quiet time.Duration) []Change {
	var out []Change
	for {
		ctx, cancel := context.WithTimeout(context.Background(), quiet)
		c, ok := w.Next(ctx)
		cancel()
		if !ok {
			return out
		}
		out = append(out, c)
	}
}

func TestWatcherFollowsNewFoldersAndAtomicWrites(t *testing.T) {
	root := t.TempDir()
	l := state.Layout{Root: root}
	reg := filepath.Join(root, "reg", "sessions.json")
	os.MkdirAll(filepath.Dir(reg), 0o755)
	// .spcstr does not exist yet: the watcher must notice it appearing.
	w, err := Start(Options{Layout: l, RegistryPath: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	os.MkdirAll(l.SessionsDir(), 0o755)
	if c := next(t, w); !c.Rescan {
		t.Fatalf(".spcstr created: %+v", c)
	}
	drain(w, 150*time.Millisecond)

	id := "abc-123"
	s := state.New(id, root, time.Now())
	p, _ := l.StatePath(id)
	os.MkdirAll(filepath.Dir(p), 0o755) // a session folder created after start
	// Its watch is added on the folder's event, before that is reported.
	waitFor(t, w, "the new session folder", func(c Change) bool { return c.Sessions[id] })
	if err := jsonfile.WriteJSON(p, s); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, "state.json of a new session folder", func(c Change) bool { return c.Sessions[id] })

	// A second atomic replace of state.json (rename) is reported again.
	s.Status = state.StatusWorking
	if err := jsonfile.WriteJSON(p, s); err != nil {
		t.Fatal(err)
	}
	if c := next(t, w); !c.Sessions[id] {
		t.Fatalf("rename of state.json not reported: %+v", c)
	}
	// The recorder's write, which swaps state.json with its spare file,
	// is reported too (twice: the second swap reuses the first's file).
	for i := range 2 {
		drain(w, 100*time.Millisecond)
		if _, err := l.Update(context.Background(), id, time.Now(), state.UpdateOptions{}, func(*state.Session, bool) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if c := next(t, w); !c.Sessions[id] {
			t.Fatalf("swap %d of state.json not reported: %+v", i+1, c)
		}
	}

	// Logs and the registry.
	os.MkdirAll(l.LogsDir(), 0o755)
	waitFor(t, w, "the logs folder", func(c Change) bool { return c.Rescan })
	lp := l.LogPath("stop")
	e, _ := json.Marshal(map[string]any{"timestamp": time.Now(), "session_id": id, "event": "Stop"})
	if err := logs.Append(context.Background(), lp, e, logs.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := jsonfile.WriteJSON(reg, map[string]any{"version": "1.0", "sessions": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	var sawLog, sawReg bool
	waitFor(t, w, "the log and the registry", func(c Change) bool {
		sawLog = sawLog || c.Logs[lp]
		sawReg = sawReg || c.Registry
		return sawLog && sawReg
	})
}

func TestWatcherCoalescesBursts(t *testing.T) {
	root := t.TempDir()
	l := state.Layout{Root: root}
	os.MkdirAll(l.LogsDir(), 0o755)
	// A debounce far longer than the gap between two appends, even on a
	// loaded machine, so that the burst is one burst.
	w, err := Start(Options{Layout: l, Debounce: time.Second, MaxDelay: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	lp := l.LogPath("pre_tool_use")
	for i := range 100 {
		e, _ := json.Marshal(map[string]any{"timestamp": time.Now(), "session_id": "s", "event": "PreToolUse", "i": i})
		if err := logs.Append(context.Background(), lp, e, logs.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	changes := drain(w, 3*time.Second)
	if len(changes) == 0 || len(changes) > 3 {
		t.Fatalf("100 appends in a burst gave %d changes, want 1–3", len(changes))
	}
	for _, c := range changes {
		if !c.Logs[lp] {
			t.Fatalf("change without the log: %+v", c)
		}
	}
}

func TestWatcherReportsConfigChangesOnly(t *testing.T) {
	root := t.TempDir()
	l := state.Layout{Root: root}
	os.MkdirAll(l.SessionsDir(), 0o755)
	w, err := Start(Options{Layout: l})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i, write := range []func() error{
		func() error { return os.WriteFile(l.ConfigPath(), []byte("strategies: {}\n"), 0o644) },                // created
		func() error { return os.WriteFile(l.ConfigPath(), []byte("strategies: {clean-state: {}}\n"), 0o644) }, // written
		func() error { return jsonfile.Write(l.ConfigPath(), []byte("strategies: {token-budget: {}}\n")) },     // atomic replace
		func() error { return os.Remove(l.ConfigPath()) },                                                      // removed
	} {
		if err := write(); err != nil {
			t.Fatal(err)
		}
		c := next(t, w)
		if !c.Config || len(c.Sessions) > 0 || len(c.Logs) > 0 || len(c.Feedback) > 0 || c.Registry || c.Requirements {
			t.Fatalf("step %d: want only Config, got %+v", i, c)
		}
		drain(w, 100*time.Millisecond)
	}
	// Another file in .spcstr/ is not the config.
	os.WriteFile(filepath.Join(l.Dir(), "notes.yaml"), []byte("x"), 0o644)
	for _, c := range drain(w, 200*time.Millisecond) {
		if c.Config {
			t.Fatalf("notes.yaml reported as config: %+v", c)
		}
	}
}
