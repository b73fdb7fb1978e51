package tui

import (
	"strings"
	"testing"
)

// TestFilterFindsByAnythingRecorded: "/" finds a session by a file it read,
// which no title, branch or id holds, with the engine of spcstr search, and
// says where it matched.
func TestFilterFindsByAnythingRecorded(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	f.log(t, "PreToolUse", idEnded, ago(2*60*60e9), map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": f.layout.Root + "/CHANGELOG.md"}})
	m := start(t, f, 120, 30)
	m = send(t, m, press("/", "C", "H", "A", "N", "G", "E", "L", "O", "G", "enter")...)
	p := plain(m)
	if shown, total := m.list.Len(); shown != 1 || total != 3 {
		t.Fatalf("/CHANGELOG shows %d of %d sessions, want 1 of 3:\n%s", shown, total, p)
	}
	if r, _ := m.list.Selected(); r.ID != idEnded {
		t.Errorf("selected %s, want %s", r.ID, idEnded)
	}
	if !strings.Contains(p, "↳ file_path: ") {
		t.Errorf("the row does not say where it matched:\n%s", p)
	}
	// A title match still needs no search, and a filter matching nothing
	// recorded shows nothing.
	m = send(t, m, press("esc", "/", "z", "q", "x", "z")...)
	if shown, _ := m.list.Len(); shown != 0 {
		t.Errorf("/zqxz shows %d sessions", shown)
	}
}
