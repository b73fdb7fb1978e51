package tui

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

var update = flag.Bool("update", false, "rewrite the golden frames in testdata/")

func TestMain(m *testing.M) {
	time.Local = time.UTC
	// The dashboards the tmux tests start answer permission prompts over
	// a socket in $XDG_RUNTIME_DIR/spcstr: a private one of this run, never
	// the user's (internal/permchan).
	rt, err := os.MkdirTemp("", "spcstr-tui-rt")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_RUNTIME_DIR", rt)
	code := m.Run()
	os.RemoveAll(rt)
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

// drive runs cmd and every command its messages lead to, synchronously,
// feeding each message to the model (the clock and the watcher are off).
func drive(t testing.TB, m Model, cmd tea.Cmd) Model {
	t.Helper()
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
		msg := c()
		if b, ok := msg.(tea.BatchMsg); ok {
			queue = append(queue, b...)
			continue
		}
		if msg == nil {
			continue
		}
		next, more := m.Update(msg)
		m = next.(Model)
		queue = append(queue, more)
	}
	return m
}

// start builds the model for a fixture at a size and runs its startup.
func start(t testing.TB, f *fixture, w, h int) Model {
	t.Helper()
	m := New(context.Background(), f.options())
	m.tick = 0
	m = drive(t, m, m.Init())
	return send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
}

func send(t testing.TB, m Model, msgs ...tea.Msg) Model {
	t.Helper()
	for _, msg := range msgs {
		next, cmd := m.Update(msg)
		m = drive(t, next.(Model), cmd)
	}
	return m
}

func press(keys ...string) []tea.Msg {
	var out []tea.Msg
	for _, k := range keys {
		switch k {
		case "enter":
			out = append(out, tea.KeyPressMsg{Code: tea.KeyEnter})
		case "esc":
			out = append(out, tea.KeyPressMsg{Code: tea.KeyEscape})
		case "tab":
			out = append(out, tea.KeyPressMsg{Code: tea.KeyTab})
		case "down":
			out = append(out, tea.KeyPressMsg{Code: tea.KeyDown})
		case "up":
			out = append(out, tea.KeyPressMsg{Code: tea.KeyUp})
		case "backspace":
			out = append(out, tea.KeyPressMsg{Code: tea.KeyBackspace})
		default:
			r := []rune(k)[0]
			out = append(out, tea.KeyPressMsg{Code: r, Text: k})
		}
	}
	return out
}

// frame renders the model as the ASCII color profile would show it.
func frame(t testing.TB, m Model) string {
	t.Helper()
	var buf bytes.Buffer
	w := colorprofile.NewWriter(&buf, nil)
	w.Profile = colorprofile.ASCII
	if _, err := w.WriteString(m.Render()); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -run Golden -update)", err)
	}
	if string(want) != got {
		t.Errorf("frame %s differs from %s (run with -update to accept):\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

// checkSize asserts every line fits the width and the frame the height.
func checkSize(t *testing.T, name, fr string, w, h int) {
	t.Helper()
	lines := strings.Split(fr, "\n")
	if len(lines) != h {
		t.Errorf("%s: %d lines, want %d", name, len(lines), h)
	}
	for i, l := range lines {
		if n := lipglossWidth(l); n > w {
			t.Errorf("%s: line %d is %d cells wide (> %d): %q", name, i, n, w, l)
		}
	}
}

func TestGoldenFrames(t *testing.T) {
	type tc struct {
		name  string
		setup func(*fixture, testing.TB)
		keys  []string
	}
	cases := []tc{
		{"empty", func(*fixture, testing.TB) {}, nil},
		{"busy-list", func(f *fixture, t testing.TB) { f.populate(t) }, nil},
		{"busy-detail", func(f *fixture, t testing.TB) { f.populate(t) }, []string{"enter"}},
		{"background-detail", func(f *fixture, t testing.TB) { f.populate(t) }, []string{"down", "enter"}},
		{"events", func(f *fixture, t testing.TB) { f.populate(t) }, []string{"3"}},
		{"requirements", func(f *fixture, t testing.TB) { f.populate(t); f.policies(t) }, []string{"4"}},
		{"feedback", func(f *fixture, t testing.TB) { f.populate(t); f.policies(t) }, []string{"5"}},
		{"requirements-unconfigured", func(f *fixture, t testing.TB) { f.populate(t) }, []string{"4"}},
		{"feedback-unconfigured", func(f *fixture, t testing.TB) { f.populate(t) }, []string{"5"}},
		{"damaged-list", func(f *fixture, t testing.TB) { f.populate(t); f.damage(t) }, nil},
		{"damaged-truncated", func(f *fixture, t testing.TB) { f.populate(t); f.damage(t) }, []string{"/", "4", "b", "2", "enter", "enter"}},
		{"damaged-huge", func(f *fixture, t testing.TB) { f.populate(t); f.damage(t) }, []string{"/", "6", "b", "2", "enter", "enter"}},
		{"help", func(*fixture, testing.TB) {}, []string{"?"}},
		{"strategies", func(f *fixture, t testing.TB) { f.populate(t); f.strategies(t) }, nil},
		// A strategy whose settings cannot be used: the header names it,
		// off (an open one) or closed (clean-state, closed by default,
		// denies what it covers), never silently either.
		{"strategies-off", func(f *fixture, t testing.TB) { f.populate(t); f.brokenStrategy(t) }, nil},
		{"decisions", func(f *fixture, t testing.TB) { f.populate(t); f.decisions(t) }, []string{"3", "d"}},
		// One stale session: "1 session", "1 compaction", its run ends at
		// its last event, each file listed once, a priced cost.
		{"stale-detail", func(f *fixture, t testing.TB) { f.stale(t) }, []string{"enter"}},
		// A session waiting for permission: first, highlighted, counted in
		// the header, with what it waits for in its row and detail.
		{"needs-input", func(f *fixture, t testing.TB) { f.populate(t); f.asking(t) }, []string{"g", "enter"}},
		// "/" in the events pane finds events: here by their error.
		{"events-find", func(f *fixture, t testing.TB) { f.populate(t) }, []string{"3", "/", "e", "x", "i", "t", "enter"}},
		// The loop is on, but this session changed no tracked code.
		{"feedback-not-started", func(f *fixture, t testing.TB) { f.populate(t); f.feedbackOn(t) }, []string{"5"}},
		// dry_run: the header and the Reqs pane say the gates enforce nothing.
		{"requirements-dry-run", func(f *fixture, t testing.TB) { f.populate(t); f.policies(t); f.dryRun(t) }, []string{"4"}},
	}
	for _, size := range []struct{ w, h int }{{40, 30}, {120, 40}} {
		for _, c := range cases {
			name := c.name + "-" + itoa(size.w)
			t.Run(name, func(t *testing.T) {
				f := newFixture(t)
				c.setup(f, t)
				m := start(t, f, size.w, size.h)
				m = send(t, m, press(c.keys...)...)
				fr := frame(t, m)
				checkSize(t, name, fr, size.w, size.h)
				golden(t, name, fr)
			})
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
