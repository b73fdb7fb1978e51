package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/notify"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/watch"
)

// fakeOnPath writes an executable script name into dir (to a temp name,
// then renamed: never run while being written).
func fakeOnPath(t *testing.T, dir, name, script string) {
	t.Helper()
	tmp := filepath.Join(dir, "."+name+".tmp")
	if err := os.WriteFile(tmp, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

// A session that starts waiting sends one notification through
// notify-send, naming it and what it waits for; not again while it waits;
// never while its tmux pane is the one in front.
func TestNotifyWhenASessionStartsWaiting(t *testing.T) {
	bin := t.TempDir()
	log := filepath.Join(bin, "notify-send.args")
	fakeOnPath(t, bin, "notify-send", "printf '%s|' \"$@\" >> '"+log+"'\necho >> '"+log+"'\n")
	// A fake tmux answers whether pane %5 is in front: in front while
	// the file front exists.
	front := filepath.Join(bin, "front")
	fakeOnPath(t, bin, "tmux", "if [ -e '"+front+"' ]; then echo '%5 111'; else echo '%5 011'; fi\n")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, k := range []string{"TERM_PROGRAM", "KITTY_WINDOW_ID", "TMUX"} {
		t.Setenv(k, "")
	}
	sent := func() []string {
		b, _ := os.ReadFile(log)
		return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(b)), " ", "_"))
	}

	f := newFixture(t)
	f.populate(t)
	writeFile(t, f.layout.ConfigPath(), "dashboard:\n  notify: true\n")
	m := New(context.Background(), f.options())
	m.tick = 0
	m = drive(t, m, m.Init())
	changed := changeMsg{c: watch.Change{Sessions: map[string]bool{idBusy: true}}}
	s := busySession(f.layout.Root)
	s.Terminal = state.Terminal{Kind: "tmux", Pane: "%5"}
	s.Status, s.LastEvent = state.StatusNeedsInput, "Notification"
	s.Notifications = append(s.Notifications, state.Notification{Timestamp: s.UpdatedAt, Type: "permission_prompt", Message: "Claude needs your permission to use Bash"})
	f.writeState(t, s)
	m = send(t, m, changed)
	got := sent()
	if len(got) != 1 || !strings.Contains(got[0], "Add_a_/healthz_endpoint") || !strings.Contains(got[0], "permission_to_use_Bash") {
		t.Fatalf("notify-send was asked %q; want once, with the title and what it waits for", got)
	}
	m = send(t, m, changed) // still waiting: nothing new
	if n := len(sent()); n != 1 {
		t.Fatalf("%d notifications while it keeps waiting, want 1", n)
	}
	// It works, then waits again while its pane is in front: nothing.
	s.Status = state.StatusWorking
	f.writeState(t, s)
	m = send(t, m, changed)
	writeFile(t, front, "")
	s.Status = state.StatusNeedsInput
	f.writeState(t, s)
	_ = send(t, m, changed)
	if n := len(sent()); n != 1 {
		t.Fatalf("%d notifications, want none more while its pane is in front", n-1)
	}
}

// With --all, a session of any project that starts waiting sends one
// notification naming its project.
func TestNotifyAllProjects(t *testing.T) {
	bin := t.TempDir()
	log := filepath.Join(bin, "notify-send.args")
	fakeOnPath(t, bin, "notify-send", "printf '%s|' \"$@\" >> '"+log+"'\necho >> '"+log+"'\n")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	opt, _ := allFixture(t)
	opt.Project.Notify = true
	m := newAllModel(opt, &projCache{})
	m.notices = &allNotices{tracker: &notify.Tracker{}, method: notify.Method{Kind: "command", Command: []string{"notify-send"}}}
	groups := (&projCache{}).load(opt)
	m, _ = driveAll(t, m, tea.WindowSizeMsg{Width: 80, Height: 30}, allLoadedMsg{groups})
	found := false
	for gi, g := range groups {
		for si, s := range g.Sessions {
			if s.ID == "8d8d8d8d-0000-4000-8000-000000000008" {
				groups[gi].Sessions[si].Display, groups[gi].Sessions[si].Asks = store.StatusPermission, "Claude is waiting for your input"
				found = true
			}
		}
	}
	if !found {
		t.Fatal("the docs session is not listed")
	}
	_, _ = driveAll(t, m, allLoadedMsg{groups})
	_, _ = driveAll(t, m, allLoadedMsg{groups}) // still waiting: nothing new
	b, _ := os.ReadFile(log)
	if got := strings.TrimSpace(string(b)); got != "docs: Proofread the README|Claude is waiting for your input|" {
		t.Fatalf("notify-send was asked %q", got)
	}
}
