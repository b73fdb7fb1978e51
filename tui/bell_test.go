package tui

import (
	"context"
	"os"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/watch"
)

// sendCounting is send that counts the terminal bells the model asks for.
func sendCounting(t *testing.T, m Model, msg tea.Msg) (Model, int) {
	t.Helper()
	return runCounting(t, m, func() tea.Msg { return msg })
}

// runCounting runs cmd and every command its messages lead to, like
// drive, and counts the bells among them.
func runCounting(t *testing.T, m Model, cmd tea.Cmd) (Model, int) {
	t.Helper()
	bells := 0
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 10000 {
			t.Fatal("commands do not settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.RawMsg:
			if msg.Msg == bell {
				bells++
			}
		default:
			next, more := m.Update(msg)
			m = next.(Model)
			queue = append(queue, more)
		}
	}
	return m, bells
}

// The bell rings once when a session starts waiting for the user: not for
// one already waiting when the dashboard opened, not again while it
// waits, and again after it worked and asks anew; never without --bell or
// dashboard.bell.
func TestBellWhenASessionStartsWaiting(t *testing.T) {
	for _, tt := range []struct {
		name      string
		flag, cfg bool
		want      int
	}{
		{"--bell", true, false, 1},
		{"dashboard.bell", false, true, 1},
		{"neither", false, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.populate(t)
			f.asking(t) // waiting already: no bell at startup
			if tt.cfg {
				writeFile(t, f.layout.ConfigPath(), "dashboard:\n  bell: true\n")
			}
			opt := f.options()
			opt.Bell = tt.flag
			m := New(context.Background(), opt)
			m.tick = 0
			m, bells := runCounting(t, m, m.Init())
			if bells != 0 {
				t.Fatalf("%d bells at startup", bells)
			}
			changed := changeMsg{c: watch.Change{Sessions: map[string]bool{idBusy: true}}}
			// The busy session asks for permission.
			s := busySession(f.layout.Root)
			s.Status, s.LastEvent = state.StatusNeedsInput, "PermissionRequest"
			f.writeState(t, s)
			m, bells = sendCounting(t, m, changed)
			if bells != tt.want {
				t.Fatalf("%d bells when it started waiting, want %d", bells, tt.want)
			}
			if r, _ := m.list.Selected(); r.ID == "" {
				t.Fatal("no session selected")
			}
			// Still waiting: no second bell.
			m, bells = sendCounting(t, m, changed)
			if bells != 0 {
				t.Fatalf("%d bells while it keeps waiting", bells)
			}
			// It works again, then asks again: one more bell.
			s.Status = state.StatusWorking
			f.writeState(t, s)
			m, _ = sendCounting(t, m, changed)
			s.Status = state.StatusNeedsInput
			f.writeState(t, s)
			_, bells = sendCounting(t, m, changed)
			if bells != tt.want {
				t.Fatalf("%d bells when it asked again, want %d", bells, tt.want)
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
