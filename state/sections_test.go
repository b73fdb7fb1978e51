package state

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"
)

// An update that leaves sections encoded gives the same state as one that
// decodes everything, whatever it appends, and the file stays one valid
// JSON document.
func TestLazySectionsMatchFullDecode(t *testing.T) {
	lazyL, fullL := Layout{Root: t.TempDir()}, Layout{Root: t.TempDir()}
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	paths := []string{"a.go", `we"ird\path`, "<html>&.go", "x/ä.go", "a.go,", "[a.go]"}
	for step := 0; step < 300; step++ {
		now := t0.Add(time.Duration(step) * time.Second)
		kind := rng.IntN(9)
		p := paths[rng.IntN(len(paths))] + fmt.Sprint(rng.IntN(20))
		agent, retire := fmt.Sprintf("a%02d", rng.IntN(40)), rng.IntN(3)
		change := func(s *Session, _ bool) error {
			switch kind {
			case 0:
				p := Prompt{Timestamp: now, Prompt: fmt.Sprintf("prompt %d", step)}
				if step%3 == 0 { // omitted when empty: must not leak into other entries
					p.Kind, p.Truncated = PromptKindTaskNotification, true
				}
				s.Prompts = append(s.Prompts, p)
			case 1:
				s.Errors = append(s.Errors, Error{Timestamp: now, Type: ErrorTool, Message: "e", Context: map[string]any{"n": float64(step)}})
			case 2:
				s.Notifications = append(s.Notifications, Notification{Timestamp: now, Message: "n"})
			case 3:
				if !contains(s.Files.Read, p) {
					s.Files.Read = append(s.Files.Read, p)
				}
			case 4:
				if !contains(s.Files.Edited, p) {
					s.Files.Edited = append(s.Files.Edited, p)
				}
			case 5:
				// Agents are read: the caller decodes them.
				if len(s.AgentsHistory) > 0 && rng.IntN(2) == 0 {
					s.AgentsHistory[0].Status = fmt.Sprint(step)
				}
				c := now
				s.AgentsHistory = append(s.AgentsHistory, Agent{Name: "x", StartedAt: now, CompletedAt: &c})
			case 6:
				// A subagent transcript tracked, as transcript.track does:
				// every agent loaded first, a known one (done or not) kept.
				if err := s.LoadDoneSubagents(); err != nil {
					return err
				}
				if _, ok := s.Subagents[agent]; !ok {
					if s.Subagents == nil {
						s.Subagents = map[string]SubagentUsage{}
					}
					s.Subagents[agent] = SubagentUsage{}
				}
			case 7:
				// The open ones read further, some retired, as
				// transcript.readSubagents and Retire do (no load).
				for _, id := range slices.Sorted(maps.Keys(s.Subagents)) {
					a := s.Subagents[id]
					if a.Done {
						continue
					}
					a.Cursor.Offset += int64(step)
					a.ByModel = map[string]ModelUsage{"m": {Input: int64(step)}}
					if (int(id[len(id)-1])+retire)%3 == 0 {
						a.Done, a.Stopped, a.ByModel = true, true, nil
					}
					s.Subagents[id] = a
				}
			}
			s.ToolsUsed["Read"]++
			return nil
		}
		lazy := AllSections
		if kind == 5 {
			lazy &^= SectionAgents
		}
		if _, err := lazyL.Update(ctx, "s", now, UpdateOptions{Keep: 7, Lazy: lazy}, change); err != nil {
			t.Fatal(err)
		}
		if _, err := fullL.Update(ctx, "s", now, UpdateOptions{Keep: 7}, change); err != nil {
			t.Fatal(err)
		}
	}
	a, err := lazyL.Load("s")
	if err != nil {
		t.Fatal(err)
	}
	b, err := fullL.Load("s")
	if err != nil {
		t.Fatal(err)
	}
	a.ProjectDir, b.ProjectDir = "", ""
	if !reflect.DeepEqual(a, b) {
		ja, _ := json.MarshalIndent(a, "", " ")
		jb, _ := json.MarshalIndent(b, "", " ")
		t.Fatalf("lazy and full updates differ:\n%s\n---\n%s", ja, jb)
	}
	done := 0
	for _, sa := range a.Subagents {
		if sa.Done {
			done++
		}
	}
	if a.PromptsTotal == 0 || len(a.Files.Read) == 0 || a.AgentsTotal <= 7 || done < 5 {
		t.Fatalf("the walk exercised too little: %+v", a)
	}
	path, _ := lazyL.StatePath("s")
	data, _ := os.ReadFile(path)
	if !json.Valid(data) {
		t.Fatal("state.json is not valid JSON")
	}
}

func contains(list []string, p string) bool {
	for _, x := range list {
		if x == p {
			return true
		}
	}
	return false
}

// A hand-edited (pretty-printed) state.json is read whole, and written back
// in the sectioned layout.
func TestLazyFallsBackToFullDecode(t *testing.T) {
	l := Layout{Root: t.TempDir()}
	path, _ := l.StatePath("s")
	s := New("s", l.Root, t0)
	s.Files.Read = []string{"a", "b"}
	s.Prompts = []Prompt{{Prompt: "hi"}}
	data, _ := json.MarshalIndent(s, "", "  ")
	if err := os.MkdirAll(l.SessionsDir()+"/s", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := l.Update(context.Background(), "s", t0, UpdateOptions{Lazy: AllSections}, func(s *Session, created bool) error {
			if created {
				t.Error("treated as new")
			}
			for _, p := range []string{"b", "c"} {
				if !contains(s.Files.Read, p) { // as the recorder does
					s.Files.Read = append(s.Files.Read, p)
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := l.Load("s")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.Files.Read) != "[a b c]" || len(got.Prompts) != 1 || got.PromptsTotal != 1 {
		t.Errorf("files %v prompts %v total %d", got.Files.Read, got.Prompts, got.PromptsTotal)
	}
}
