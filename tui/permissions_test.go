package tui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/permchan"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/watch"
)

type hookResult struct {
	a   permchan.Answer
	err error
}

// posted starts a hook's Ask for a Bash call and returns the dashboard's
// side of it.
func posted(t *testing.T, ctx context.Context, srv *permchan.Server, dir, root, cmd string) (*permchan.Pending, <-chan hookResult) {
	t.Helper()
	out := make(chan hookResult, 1)
	go func() {
		a, err := permchan.Ask(ctx, dir, permchan.SocketPath(dir, root), &permchan.Request{
			SessionID: idBusy, Title: "ship the release", Cwd: root, ToolName: "Bash",
			ToolInput:   []byte(`{"command":"` + cmd + `","description":"Publish the package"}`),
			Suggestions: []byte(`[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm publish:*"}],"behavior":"allow","destination":"localSettings"}]`),
			AskedAt:     fixedNow, Deadline: time.Now().Add(time.Minute),
		})
		out <- hookResult{a, err}
	}()
	select {
	case p := <-srv.Requests():
		return p, out
	case <-time.After(10 * time.Second):
		t.Fatal("no request reached the dashboard")
	}
	return nil, nil
}

// feed feeds msg to m and runs the commands it returns that do not
// wait on the channel (the card's answers), feeding back their results.
func feed(t *testing.T, m Model, msg tea.Msg) Model {
	t.Helper()
	next, cmd := m.Update(msg)
	m = next.(Model)
	if _, isKey := msg.(tea.KeyPressMsg); isKey && cmd != nil {
		if res := cmd(); res != nil {
			next, _ = m.Update(res)
			m = next.(Model)
		}
	}
	return m
}

func TestPermissionCard(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	m := start(t, f, 100, 30)
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(rt) })
	dir := filepath.Join(rt, "spcstr")
	srv, err := permchan.Listen(dir, f.layout.Root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	for _, tc := range []struct {
		name  string
		keys  []string
		want  permchan.Answer
		flash string
	}{
		{"allow once", []string{"y"}, permchan.Answer{Behavior: permchan.Allow}, "allowed once: Bash `npm publish`"},
		{"deny", []string{"n"}, permchan.Answer{Behavior: permchan.Deny}, "denied: Bash `npm publish`"},
		{"deny with a message", []string{"m", "n", "o", "p", "e", "backspace", "enter"},
			permchan.Answer{Behavior: permchan.Deny, Message: "nop"}, "denied: Bash"},
		{"always", []string{"a"}, permchan.Answer{Behavior: permchan.Allow, Always: true}, "always allowed: Bash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, res := posted(t, context.Background(), srv, dir, f.layout.Root, "npm publish")
			m = feed(t, m, permReqMsg{p: p})
			got := plain(m)
			for _, want := range []string{"needs permission", "Bash", "npm publish", "Publish the package", "ship the release", "waiting  0s",
				"Bash(npm publish:*)", "y allow once", "esc leave it to the terminal"} {
				if !strings.Contains(got, want) {
					t.Fatalf("card lacks %q:\n%s", want, got)
				}
			}
			for _, k := range press(tc.keys...) {
				m = feed(t, m, k)
			}
			r := <-res
			tc.want.Nonce = r.a.Nonce
			if r.err != nil || r.a != tc.want {
				t.Fatalf("hook got %+v %v, want %+v", r.a, r.err, tc.want)
			}
			if m.card.Active() || !strings.Contains(m.status, tc.flash) {
				t.Errorf("after the answer: card up %v, status %q", m.card.Active(), m.status)
			}
			m = feed(t, m, permGoneCmd(p)()) // the hook's end after its answer changes nothing
		})
	}

	t.Run("esc leaves it to the terminal", func(t *testing.T) {
		p, res := posted(t, context.Background(), srv, dir, f.layout.Root, "rm -rf build")
		m = feed(t, m, permReqMsg{p: p})
		m = feed(t, m, press("esc")[0])
		if r := <-res; r.err != permchan.ErrLeft {
			t.Fatalf("hook: %+v %v, want ErrLeft", r.a, r.err)
		}
		if m.card.Active() || !strings.Contains(m.status, "left to the terminal") {
			t.Errorf("card up %v, status %q", m.card.Active(), m.status)
		}
	})

	t.Run("answered in the terminal", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		p, res := posted(t, ctx, srv, dir, f.layout.Root, "make deploy")
		m = feed(t, m, permReqMsg{p: p})
		if !strings.Contains(plain(m), "make deploy") {
			t.Fatalf("no card:\n%s", plain(m))
		}
		cancel() // Claude Code ends the hook: the terminal's dialog answered
		<-res
		next, cmd := m.Update(permGoneCmd(p)())
		m = next.(Model)
		if m.card.Active() || !strings.Contains(m.status, "answered in the terminal: Bash `make deploy`") {
			t.Fatalf("card up %v, status %q", m.card.Active(), m.status)
		}
		if cmd == nil {
			t.Fatal("no decision record written")
		}
		m = feed(t, m, cmd())
		recs := f.readDecisions(t)
		if len(recs) == 0 || recs[len(recs)-1].Source != gate.SourceTerminal || recs[len(recs)-1].SessionID != idBusy {
			t.Errorf("decision records: %+v", recs)
		}
	})

	t.Run("the session went on: the terminal answered", func(t *testing.T) {
		p, res := posted(t, context.Background(), srv, dir, f.layout.Root, "make release")
		m = feed(t, m, permReqMsg{p: p})
		m = send(t, m, tickMsg{}) // nothing new from the session: the card stays
		if !m.card.Active() {
			t.Fatal("the card went with no news from the session")
		}
		// Claude Code did not end the hook, but the session ran the tool.
		s := busySession(f.layout.Root)
		s.Status, s.LastEventAt = state.StatusWorking, fixedNow.Add(time.Second)
		f.writeState(t, s)
		next, cmd := m.Update(changeMsg{c: watch.Change{Sessions: map[string]bool{idBusy: true}}})
		m = drive(t, next.(Model), cmd)
		if m.card.Active() || !strings.Contains(m.status, "answered in the terminal: Bash `make release`") {
			t.Fatalf("card up %v, status %q", m.card.Active(), m.status)
		}
		if r := <-res; r.err != permchan.ErrLeft {
			t.Errorf("hook: %+v %v, want ErrLeft (it returns no answer)", r.a, r.err)
		}
	})

	t.Run("oldest first, and the keyboard is the card's", func(t *testing.T) {
		p1, r1 := posted(t, context.Background(), srv, dir, f.layout.Root, "first")
		p2, r2 := posted(t, context.Background(), srv, dir, f.layout.Root, "second")
		p2.Request.AskedAt = p1.Request.AskedAt.Add(-time.Second)
		m = feed(t, m, permReqMsg{p: p1})
		m = feed(t, m, permReqMsg{p: p2})
		if m.card.Current() != p2 || !strings.Contains(plain(m), "1 of 2 waiting") {
			t.Fatalf("current = %v:\n%s", m.card.Current().Request, plain(m))
		}
		focus := m.focus
		m = feed(t, m, press("tab")[0])
		if m.focus != focus {
			t.Error("tab moved the focus under the card")
		}
		m = feed(t, m, press("n")[0])
		m = feed(t, m, press("y")[0])
		if a := <-r2; a.a.Behavior != permchan.Deny {
			t.Errorf("the older prompt got %+v", a)
		}
		if a := <-r1; a.a.Behavior != permchan.Allow {
			t.Errorf("the newer prompt got %+v", a)
		}
	})
}

func (f *fixture) readDecisions(t *testing.T) []gate.Record {
	t.Helper()
	var out []gate.Record
	err := logs.ScanFile(f.layout.LogPath(logs.Name(logs.Decisions, "")), func(raw []byte) error {
		var r gate.Record
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
