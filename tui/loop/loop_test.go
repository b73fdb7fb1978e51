package loop

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

func TestScrollKeys(t *testing.T) {
	m := New(theme.New(true, true))
	m.SetSize(60, 6)
	v := View{Configured: true, Iteration: 1, MaxIterations: 3}
	for _, n := range []string{"api", "web", "cli", "docs", "infra", "data"} {
		v.Domains = append(v.Domains, Domain{Name: n, Review: Phase{Status: Fail, Agent: n + "-reviewer", Issues: []string{"issue in " + n}}})
	}
	v.Domains[0].Name = "api\x1b]0;retitled\x07"
	m.SetView(v)
	top := ansi.Strip(m.View())
	if !strings.Contains(top, "Feedback loop") || strings.Contains(top, "retitled") {
		t.Fatalf("top:\n%s", top)
	}
	m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	bottom := ansi.Strip(m.View())
	if !strings.Contains(bottom, "issue in data") || strings.Contains(bottom, "Feedback loop") {
		t.Fatalf("G did not reach the bottom:\n%s", bottom)
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyPgUp})
	m.Update(tea.KeyPressMsg{Code: 'g', Text: "g"})
	if got := ansi.Strip(m.View()); got != top {
		t.Fatalf("g did not return to the top:\n%s", got)
	}
}

// A session without a loop is told why: the loop is off, the config does
// not parse, or the loop is on and the session changed no tracked code.
func TestNoLoopSaysWhy(t *testing.T) {
	for _, tt := range []struct{ config, want string }{
		{"", NotConfigured},
		{"feedback:\n  enabled: false\n", NotConfigured},
		{"feedback:\n  enabled: true\n", NotStarted},
		{"feedback: [\n", "No feedback loop: parse"},
	} {
		root := t.TempDir()
		if tt.config != "" {
			l := state.Layout{Root: root}
			if err := os.MkdirAll(l.Dir(), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(l.ConfigPath(), []byte(tt.config), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		v := Load(context.Background(), Request{Root: root, SessionID: "s1"})
		if v.Configured || !strings.HasPrefix(v.Reason, tt.want) {
			t.Errorf("config %q: reason %q, want %q", tt.config, v.Reason, tt.want)
		}
	}
}

// Code the session changed that no rule routes is named in the pane,
// whether or not a loop runs: the user learns their language is not
// covered. Markdown and routed code are not named.
func TestUnroutedCodeNamed(t *testing.T) {
	root := t.TempDir()
	l := state.Layout{Root: root}
	if err := os.MkdirAll(l.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l.ConfigPath(), []byte("feedback:\n  enabled: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edit := func(files ...string) {
		_, err := l.Update(context.Background(), "s1", time.Now(), state.UpdateOptions{}, func(s *state.Session, _ bool) error {
			s.Files.Edited = append(s.Files.Edited, files...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	edit("app/View.swift", "README.md", "src/a.ts")
	m := New(theme.New(true, true))
	m.SetSize(60, 20)
	m.SetView(Load(context.Background(), Request{Root: root, SessionID: "s1"}))
	got := ansi.Strip(m.View())
	if !strings.Contains(got, "code no rule routes") || !strings.Contains(got, "View.swift") {
		t.Fatalf("no loop yet, unrouted code not named:\n%s", got)
	}
	// A loop runs (frontend, for src/a.ts): the line stays.
	p, _ := l.FeedbackPath("s1")
	if err := os.WriteFile(p, []byte(`{"version":1,"active":true,"iteration":1,"modified_domains":["frontend"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m.SetView(Load(context.Background(), Request{Root: root, SessionID: "s1"}))
	got = strings.Join(strings.Fields(ansi.Strip(m.View())), " ")
	if !strings.Contains(got, "frontend") || !strings.Contains(got, "code no rule routes (not reviewed or tested): 1 file (app/View.swift)") ||
		strings.Contains(got, "a.ts") {
		t.Fatalf("loop running:\n%s", got)
	}
}
