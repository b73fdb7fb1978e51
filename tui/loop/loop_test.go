package loop

import (
	"context"
	"os"
	"strings"
	"testing"

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
