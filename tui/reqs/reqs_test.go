package reqs

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dylan-gluck/spcstr/tui/theme"
)

func press(s string) tea.KeyPressMsg { return tea.KeyPressMsg{Code: []rune(s)[0], Text: s} }

func TestPaneKeys(t *testing.T) {
	m := New(theme.New(false, true), false)
	m.SetSize(90, 20)
	m.SetView(Load(context.Background(), Request{Branch: "main"}))
	if v := ansi.Strip(m.View()); !strings.Contains(v, NotConfigured[:20]) || !strings.Contains(v, ComingSoon) {
		t.Fatalf("unconfigured pane:\n%s", v)
	}
	m.SetView(View{Configured: true, Requirements: []Requirement{{Name: "a", Scope: "session"}, {Name: "b", Scope: "branch", Satisfied: true}}})
	m.Update(press("j"))
	for k, kind := range map[string]string{"s": "satisfy-session", "S": "satisfy-branch", "x": "clear"} {
		cmd := m.Update(press(k))
		if cmd == nil {
			t.Fatalf("%s: no command", k)
		}
		got := cmd().(ActionMsg)
		if got.Kind != kind || got.Name != "b" {
			t.Fatalf("%s: %+v", k, got)
		}
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "1/2 satisfied") || !strings.Contains(v, "✓ b branch") {
		t.Fatalf("configured pane:\n%s", v)
	}
}
