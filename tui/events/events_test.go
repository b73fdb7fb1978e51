package events

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

var sample = []store.Event{
	{Event: "UserPromptSubmit", Detail: "Add a healthz endpoint"},
	{Event: "PostToolUse", Tool: "Edit", Detail: "cmd/server/main.go"},
	{Event: "PreToolUse", Tool: "Bash", Detail: "go test ./..."},
	{Event: "PostToolUseFailure", Tool: "Bash", Detail: "go vet ./...", Error: "Exit code 1: unreachable code", Failed: true},
	{Event: "SubagentStart", Agent: "reviewer", Detail: "reviewer"},
}

func TestFind(t *testing.T) {
	for _, tt := range []struct {
		find string
		want []int
	}{
		{"healthz", []int{0}},        // prompt text
		{"server/main.go", []int{1}}, // file path
		{"go test", []int{2}},        // command
		{"unreachable", []int{3}},    // error, not shown as the detail
		{"bash", []int{2, 3}},        // tool
		{"review", []int{4}},         // agent
		{"nothing like it", nil},
	} {
		got := Find(sample, tt.find)
		if len(got) != len(tt.want) {
			t.Errorf("%q: %d events, want %d", tt.find, len(got), len(tt.want))
			continue
		}
		for i, w := range tt.want {
			if got[i] != sample[w] {
				t.Errorf("%q: event %d is %+v, want %+v", tt.find, i, got[i], sample[w])
			}
		}
	}
}

func TestFindKeys(t *testing.T) {
	m := New(theme.New(true, true))
	m.SetSize(60, 10)
	m.SetEvents("s", sample)
	for _, k := range []string{"/", "G", "o", " ", "t"} {
		m.Update(tea.KeyPressMsg{Code: []rune(k)[0], Text: k})
	}
	if !m.Editing() || m.Find() != "Go t" {
		t.Fatalf("typing: editing %v, find %q", m.Editing(), m.Find())
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	v := ansi.Strip(m.View())
	if m.Editing() || !strings.Contains(v, "1 match of 5") || !strings.Contains(v, "go test") || strings.Contains(v, "healthz") {
		t.Fatalf("after enter:\n%s", v)
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if v := ansi.Strip(m.View()); m.Find() != "" || !strings.Contains(v, "healthz") {
		t.Fatalf("esc did not clear the search:\n%s", v)
	}
}
