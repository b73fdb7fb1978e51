package tui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/internal/projects"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/projlist"
	"github.com/dylan-gluck/spcstr/tui/store"
)

// allFixture is a machine with three recorded projects: "server" (the
// usual fixture: two live sessions and an ended one), "webapp" (one ended
// session) and "gone" (listed, but its folder was removed), plus "docs",
// which is not in the projects list but has a live session in the
// registry.
func allFixture(t *testing.T) (AllOptions, *fixture) {
	t.Helper()
	f := newFixture(t)
	f.populate(t)
	home := filepath.Dir(f.layout.Root)
	list := filepath.Join(home, "state", projects.FileName)
	ctx := context.Background()
	mk := func(name string) state.Layout {
		l := state.Layout{Root: filepath.Join(home, name)}
		if err := os.MkdirAll(l.Dir(), 0o755); err != nil {
			t.Fatal(err)
		}
		return l
	}
	web := mk("webapp")
	s := state.New("7c7c7c7c-0000-4000-8000-000000000007", web.Root, ago(26*time.Hour))
	s.Status, s.Branch, s.LastEventAt = state.StatusEnded, "feature/login", ago(25*time.Hour)
	s.Prompts = []state.Prompt{{Timestamp: ago(26 * time.Hour), Prompt: "Add the login form"}}
	s.ClaudeCost = &state.ClaudeCost{USD: 1.5, ByModel: map[string]state.ClaudeModelCost{"claude-opus-5-5": {Input: 1000, Output: 100, USD: 1.5}}}
	(&fixture{layout: web}).writeState(t, s)
	gone := mk("gone")
	for i, root := range []string{gone.Root, web.Root, f.layout.Root} {
		if err := projects.Remember(ctx, list, root, fixedNow.Add(time.Duration(i-10)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(gone.Root); err != nil {
		t.Fatal(err)
	}
	docs := mk("docs")
	d := state.New("8d8d8d8d-0000-4000-8000-000000000008", docs.Root, ago(10*time.Minute))
	d.Status, d.Branch, d.LastEventAt = state.StatusWaiting, "main", ago(time.Minute)
	d.Prompts = []state.Prompt{{Timestamp: ago(10 * time.Minute), Prompt: "Proofread the README"}}
	df := &fixture{layout: docs, registry: f.registry}
	df.writeState(t, d)
	df.register(t, d.SessionID, alivePID)
	return AllOptions{
		ProjectsPath: list, RegistryPath: f.registry, Home: home, PerProject: 10,
		Project: f.options(), Now: f.options().Now, Alive: f.options().Alive,
	}, f
}

// driveAll runs cmd and what follows from it on the --all model.
func driveAll(t *testing.T, m allModel, msgs ...tea.Msg) (allModel, []tea.Msg) {
	t.Helper()
	var out []tea.Msg
	queue := []tea.Msg{}
	queue = append(queue, msgs...)
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 1000 {
			t.Fatal("messages do not settle")
		}
		msg := queue[0]
		queue = queue[1:]
		next, cmd := m.Update(msg)
		m = next.(allModel)
		if cmd == nil {
			continue
		}
		res := cmd()
		switch res := res.(type) {
		case tea.BatchMsg:
			for _, c := range res {
				if c != nil {
					if r := c(); r != nil {
						queue = append(queue, r)
					}
				}
			}
		case tea.QuitMsg, nil:
			out = append(out, res)
		default:
			queue = append(queue, res)
		}
	}
	return m, out
}

func allFrame(t *testing.T, m allModel) string {
	t.Helper()
	var buf bytes.Buffer
	w := colorprofile.NewWriter(&buf, nil)
	w.Profile = colorprofile.ASCII
	if _, err := w.WriteString(m.Render()); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestAllProjects(t *testing.T) {
	opt, f := allFixture(t)
	for _, size := range []struct{ w, h int }{{40, 30}, {120, 30}} {
		name := "all-projects-" + itoa(size.w)
		t.Run(name, func(t *testing.T) {
			m := newAllModel(opt, &projCache{})
			m, _ = driveAll(t, m, tea.WindowSizeMsg{Width: size.w, Height: size.h}, m.opt.load(m.cache))
			fr := allFrame(t, m)
			checkSize(t, name, fr, size.w, size.h)
			golden(t, name, fr)
			if strings.Contains(fr, "gone") {
				t.Error("a project whose folder is gone is listed")
			}
		})
	}
	t.Run("enter opens the project under the cursor", func(t *testing.T) {
		m := newAllModel(opt, &projCache{})
		m, _ = driveAll(t, m, tea.WindowSizeMsg{Width: 80, Height: 30}, m.opt.load(m.cache))
		if got := m.list.Selected(); got != f.layout.Root {
			t.Fatalf("first project %q, want the one with live sessions %q", got, f.layout.Root)
		}
		m, out := driveAll(t, m, press("down", "down", "enter")...)
		if m.open != filepath.Join(filepath.Dir(f.layout.Root), "webapp") {
			t.Fatalf("opened %q", m.open)
		}
		if len(out) == 0 {
			t.Fatal("enter did not end the list")
		}
		if _, ok := out[len(out)-1].(tea.QuitMsg); !ok {
			t.Fatalf("enter ended with %T", out[len(out)-1])
		}
	})
	t.Run("every project's cost, today's and in all", func(t *testing.T) {
		groups := (&projCache{}).load(opt)
		byName := map[string]projlist.Group{}
		for _, g := range groups {
			byName[g.Name] = g
		}
		// webapp: Claude Code's own figure, from yesterday.
		if w := byName["webapp"]; w.All.String() != "$1.50" || w.Today.Any {
			t.Errorf("webapp: today %s all %s, want nothing today and $1.50 in all", w.Today, w.All)
		}
		// server: its dashboard's own header totals.
		sv := byName[filepath.Base(f.layout.Root)]
		var sums []store.Summary
		list, _ := store.ListSessions(f.layout)
		for _, li := range list {
			sum, _ := store.LoadSession(f.layout, li.ID, li.ModTime)
			sums = append(sums, sum)
		}
		want := costTotals(pricing.Default(), sums, opt.Now())
		if got := costLabel(sv.Today, sv.All); got != want || got == "" {
			t.Errorf("server: %q, want its dashboard's %q", got, want)
		}
		m := newAllModel(opt, &projCache{})
		m, _ = driveAll(t, m, tea.WindowSizeMsg{Width: 120, Height: 30}, m.opt.load(m.cache))
		var all pricing.Total
		all.Merge(sv.All)
		all.Merge(byName["webapp"].All)
		if fr := allFrame(t, m); !strings.Contains(strings.SplitN(fr, "\n", 2)[0], "all "+all.String()) {
			t.Errorf("the header does not total every project (%s):\n%s", all, fr)
		}
	})
	t.Run("a refresh reads again only what may have changed", func(t *testing.T) {
		c := &projCache{}
		first := c.load(opt)
		web := filepath.Join(filepath.Dir(f.layout.Root), "webapp")
		// An unchanged, idle project is not read again: damage its
		// state without touching the sessions folder's time.
		p, _ := state.Layout{Root: web}.StatePath("7c7c7c7c-0000-4000-8000-000000000007")
		fi, _ := os.Stat(filepath.Dir(filepath.Dir(p)))
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(filepath.Dir(filepath.Dir(p)), fi.ModTime(), fi.ModTime())
		second := c.load(opt)
		if groupLine(first, web) != groupLine(second, web) {
			t.Fatalf("idle project read again:\n%s\n%s", groupLine(first, web), groupLine(second, web))
		}
	})
}

// load is the read the --all program makes (for tests).
func (o AllOptions) load(c *projCache) tea.Msg { return allLoadedMsg{c.load(o)} }

func groupLine(groups []projlist.Group, path string) string {
	for _, g := range groups {
		if g.Path == path {
			var b strings.Builder
			for _, s := range g.Sessions {
				b.WriteString(s.ID + " " + s.Display + " " + s.LastPrompt + ";")
			}
			return b.String()
		}
	}
	return "(missing)"
}

func TestBackToProjects(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	for _, tc := range []struct {
		back bool
		key  string
		want bool
	}{
		{true, "q", true},
		{false, "q", false},
	} {
		m := start(t, f, 80, 24)
		m.opt.Back = tc.back
		next, cmd := m.Update(press(tc.key)[0])
		if cmd == nil {
			t.Fatal("q did nothing")
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Fatal("q did not end the dashboard")
		}
		if got := next.(Model).shared.back; got != tc.want {
			t.Errorf("Back %v, %s: back = %v", tc.back, tc.key, got)
		}
	}
	m := New(context.Background(), Options{Back: true})
	if !strings.Contains(m.keys.Quit.Help().Desc, "projects") {
		t.Errorf("q's help with Back: %q", m.keys.Quit.Help().Desc)
	}
}
