package state

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func finished(name string) Agent {
	t := t0
	return Agent{Name: name, StartedAt: t0, CompletedAt: &t, Status: AgentCompleted}
}

func running(name string) Agent {
	return Agent{Name: name, StartedAt: t0, Status: AgentRunning}
}

func agentNames(list []Agent) string {
	var b []string
	for _, a := range list {
		b = append(b, a.Name)
	}
	return strings.Join(b, ",")
}

func TestBound(t *testing.T) {
	tests := []struct {
		name       string
		keep       int
		prompts    int
		agents     []Agent
		wantAgents string
	}{
		{name: "under the limit: nothing cut", keep: 5, prompts: 3,
			agents: []Agent{finished("a"), running("b")}, wantAgents: "a,b"},
		{name: "at the limit", keep: 3, prompts: 3, agents: []Agent{finished("a"), finished("b"), finished("c")}, wantAgents: "a,b,c"},
		{name: "oldest finished go, running stay in order", keep: 2, prompts: 10,
			agents:     []Agent{finished("a"), running("r1"), finished("b"), finished("c"), running("r2"), finished("d")},
			wantAgents: "r1,c,r2,d"},
		{name: "keep 0 means the default", keep: 0, prompts: DefaultKeep + 7, agents: []Agent{}, wantAgents: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New("s", "/p", t0)
			for i := 0; i < tt.prompts; i++ {
				s.Prompts = append(s.Prompts, Prompt{Prompt: strings.Repeat("x", i)})
				s.Errors = append(s.Errors, Error{Message: "e"})
				s.Notifications = append(s.Notifications, Notification{Message: "n"})
				s.Starts = append(s.Starts, Start{Source: "compact", At: t0.Add(time.Duration(i) * time.Second)})
			}
			s.AgentsHistory = tt.agents
			s.Bound(tt.keep)
			keep := tt.keep
			if keep <= 0 {
				keep = DefaultKeep
			}
			wantLen := min(tt.prompts, keep)
			if len(s.Prompts) != wantLen || len(s.Errors) != wantLen || len(s.Notifications) != wantLen || len(s.Starts) != wantLen {
				t.Errorf("lengths %d %d %d %d, want %d", len(s.Prompts), len(s.Errors), len(s.Notifications), len(s.Starts), wantLen)
			}
			if n := len(s.Starts); n > 0 && !s.Starts[n-1].At.Equal(t0.Add(time.Duration(tt.prompts-1)*time.Second)) {
				t.Errorf("the latest start was not kept: %v", s.Starts[n-1])
			}
			if s.PromptsTotal != tt.prompts || s.ErrorsTotal != tt.prompts || s.NotificationsTotal != tt.prompts || s.AgentsTotal != len(tt.agents) {
				t.Errorf("totals %d %d %d %d", s.PromptsTotal, s.ErrorsTotal, s.NotificationsTotal, s.AgentsTotal)
			}
			if tt.prompts > 0 && s.Prompts[len(s.Prompts)-1].Prompt != strings.Repeat("x", tt.prompts-1) {
				t.Errorf("the latest prompt was not kept")
			}
			if got := agentNames(s.AgentsHistory); got != tt.wantAgents {
				t.Errorf("agents = %s, want %s", got, tt.wantAgents)
			}
			// Idempotent: bounding again changes nothing.
			before, _ := json.Marshal(s)
			s.Bound(tt.keep)
			if after, _ := json.Marshal(s); string(after) != string(before) {
				t.Errorf("second Bound changed the state")
			}
		})
	}
}

// Totals keep counting across updates once the lists are full, and an
// entry removed by an update (a denied agent call) is not counted.
func TestUpdateKeepsTotals(t *testing.T) {
	l := Layout{Root: t.TempDir()}
	ctx := context.Background()
	for i := 0; i < 12; i++ {
		_, err := l.Update(ctx, "s", t0.Add(time.Duration(i)*time.Second), UpdateOptions{Keep: 5}, func(s *Session, _ bool) error {
			s.Prompts = append(s.Prompts, Prompt{Prompt: "p"})
			s.AgentsHistory = append(s.AgentsHistory, finished("a"))
			if i == 11 {
				s.AgentsHistory = s.AgentsHistory[:len(s.AgentsHistory)-1]
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := l.Load("s")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Prompts) != 5 || s.PromptsTotal != 12 || len(s.AgentsHistory) != 5 || s.AgentsTotal != 11 {
		t.Errorf("prompts %d/%d agents %d/%d", len(s.Prompts), s.PromptsTotal, len(s.AgentsHistory), s.AgentsTotal)
	}
}

// A version 1 state.json (complete lists, whole prompts, no totals) is
// migrated on its first write.
func TestUpdateMigratesVersion1(t *testing.T) {
	l := Layout{Root: t.TempDir()}
	path, _ := l.StatePath("old")
	v1 := New("old", l.Root, t0)
	v1.Version = 1
	for i := 0; i < 150; i++ {
		v1.Prompts = append(v1.Prompts, Prompt{Prompt: strings.Repeat("long prompt ", 500)})
	}
	v1.Errors = append(v1.Errors, Error{Message: strings.Repeat("e", 4000)})
	data, _ := json.Marshal(v1)
	data = []byte(strings.Replace(string(data), `"prompts_total":0,`, "", 1))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Update(context.Background(), "old", t0, UpdateOptions{Keep: 0}, func(s *Session, created bool) error {
		if created {
			t.Error("a version 1 file was treated as new")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s, err := l.Load("old")
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != SchemaVersion || s.PromptsTotal != 150 || len(s.Prompts) != DefaultKeep || s.ErrorsTotal != 1 {
		t.Fatalf("migrated: version %d prompts %d/%d errors %d", s.Version, len(s.Prompts), s.PromptsTotal, s.ErrorsTotal)
	}
	if p := s.Prompts[0]; len(p.Prompt) > PromptPreviewBytes || !p.Truncated {
		t.Errorf("prompt not cut to a preview: %d bytes", len(p.Prompt))
	}
	if len(s.Errors[0].Message) > ErrorPreviewBytes {
		t.Errorf("error not cut to a preview: %d bytes", len(s.Errors[0].Message))
	}
	if fi, _ := os.Stat(path); fi.Size() > 100_000 {
		t.Errorf("migrated state.json is %d bytes", fi.Size())
	}
}
