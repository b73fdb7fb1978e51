package projlist

import (
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/tui/theme"
)

// TestSelectBeforeTheListIsRead: coming back from a project (spcstr tui
// --all, q), the cursor is on the project left, although the list is read
// after the selection is asked for.
func TestSelectBeforeTheListIsRead(t *testing.T) {
	m := New(theme.New(true, true), time.Now, "")
	m.SetSize(60, 20)
	m.Select("/p/b")
	m.SetGroups([]Group{{Path: "/p/a", Name: "a"}, {Path: "/p/b", Name: "b"}, {Path: "/p/c", Name: "c"}})
	if got := m.Selected(); got != "/p/b" {
		t.Fatalf("selected %q, want /p/b", got)
	}
	// Later refreshes keep the cursor where the user moved it.
	m.Select("/p/c")
	m.SetGroups([]Group{{Path: "/p/a", Name: "a"}, {Path: "/p/b", Name: "b"}, {Path: "/p/c", Name: "c"}})
	if got := m.Selected(); got != "/p/c" {
		t.Fatalf("after a refresh %q, want /p/c", got)
	}
}
