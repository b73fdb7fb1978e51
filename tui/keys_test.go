package tui

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/reqs"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/watch"
)

func TestKeysMoveFocusAndSelection(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	m := start(t, f, 40, 30)
	if m.focus != PaneSessions || m.selected != idBusy {
		t.Fatalf("start: focus %v selected %q, want sessions and the newest (%s)", m.focus, m.selected, idBusy)
	}
	m = send(t, m, press("down")...)
	if m.selected != idBg || m.follow {
		t.Fatalf("down: selected %q follow %v, want %s and follow off", m.selected, m.follow, idBg)
	}
	m = send(t, m, press("enter")...)
	if m.focus != PaneDetail || !strings.Contains(plain(m), "tester [bg]") {
		t.Fatalf("enter: focus %v, detail:\n%s", m.focus, plain(m))
	}
	m = send(t, m, press("tab")...)
	if m.focus != PaneEvents {
		t.Fatalf("tab: focus %v, want events", m.focus)
	}
	m = send(t, m, press("esc")...)
	if m.focus != PaneSessions {
		t.Fatalf("esc: focus %v, want sessions", m.focus)
	}
	m = send(t, m, press("]")...)
	if m.selected != idEnded {
		t.Fatalf("]: selected %q, want %s", m.selected, idEnded)
	}
	m = send(t, m, press("f")...)
	if !m.follow || m.selected != idBusy {
		t.Fatalf("f: follow %v selected %q, want on and the newest", m.follow, m.selected)
	}
	m = send(t, m, press("5")...)
	if m.focus != PaneFeedback || !strings.Contains(plain(m), "No feedback loop") {
		t.Fatalf("5: focus %v:\n%s", m.focus, plain(m))
	}
}

func TestFilterKeys(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	m := start(t, f, 120, 40)
	m = send(t, m, press("/", "e", "n", "d", "e", "d")...)
	if !m.list.Editing() || m.list.Filter() != "ended" {
		t.Fatalf("typing: editing %v filter %q", m.list.Editing(), m.list.Filter())
	}
	if shown, total := m.list.Len(); shown != 1 || total != 3 {
		t.Fatalf("filter 'ended' shows %d of %d, want 1 of 3", shown, total)
	}
	// q is text while typing, not quit.
	_, cmd := m.Update(press("q")[0])
	if cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("q quit while typing a filter")
		}
	}
	m = send(t, m, press("backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "enter")...)
	if m.list.Editing() {
		t.Fatal("enter did not end editing")
	}
	// The filter matches titles: the session named "Parser survey…".
	m = send(t, m, press("/", "s", "u", "r", "v", "e", "y", "enter")...)
	if r, ok := m.list.Selected(); !ok || r.ID != idBg {
		t.Fatalf("filter %q selects %q (%v)", m.list.Filter(), r.ID, ok)
	}
	if shown, _ := m.list.Len(); shown != 1 {
		t.Fatalf("filter 'survey' shows %d, want 1", shown)
	}
	m = send(t, m, press("esc")...)
	m = send(t, m, press("/", "m", "a", "i", "n", "esc")...)
	if m.list.Filter() != "" {
		t.Fatalf("esc left filter %q", m.list.Filter())
	}
	if shown, _ := m.list.Len(); shown != 3 {
		t.Fatalf("after esc %d shown, want 3", shown)
	}
}

func TestHelpAndQuit(t *testing.T) {
	f := newFixture(t)
	m := start(t, f, 40, 80)
	m = send(t, m, press("?")...)
	if !m.showHelp || !strings.Contains(plain(m), "satisfy for this session") {
		t.Fatalf("? did not show every key:\n%s", plain(m))
	}
	m = send(t, m, press("j")...)
	if !m.showHelp || m.helpOffset != 1 {
		t.Fatalf("j in help: show %v offset %d", m.showHelp, m.helpOffset)
	}
	m = send(t, m, press("esc")...)
	if m.showHelp {
		t.Fatal("esc did not close help")
	}
	// q closes help; it quits only outside it.
	m = send(t, m, press("?")...)
	next, cmd := m.Update(press("q")[0])
	m = next.(Model)
	if m.showHelp || cmd != nil {
		t.Fatalf("q in help: show %v, command %v; want help closed, no quit", m.showHelp, cmd)
	}
	if p := plain(m); strings.Contains(p, "any key") {
		t.Fatalf("help says any key closes it:\n%s", p)
	}
	_, cmd = m.Update(press("q")[0])
	if cmd == nil {
		t.Fatal("q returned no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q did not quit")
	}
}

func TestReservedRequirementKeys(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	m := start(t, f, 120, 40)
	m = send(t, m, press("4", "s")...)
	if !strings.Contains(plain(m), "coming with requirements") {
		t.Fatalf("s did not say the key is reserved:\n%s", plain(m))
	}

	// Wired actions receive the selected requirement.
	var got []string
	opt := f.options()
	opt.Requirements = func(_ context.Context, r reqs.Request) reqs.View {
		return reqs.View{Configured: true, Branch: r.Branch, Requirements: []reqs.Requirement{
			{Name: "commit_plan", Scope: "session", Triggered: true},
			{Name: "adr_reviewed", Scope: "branch", Satisfied: true, SatisfiedBy: "skill"},
		}}
	}
	act := func(kind string) reqs.Action {
		return func(_ context.Context, r reqs.Request, name string) error {
			got = append(got, kind+":"+r.SessionID[:8]+":"+name)
			if kind == "clear" {
				return errors.New("clear failed: locked")
			}
			return nil
		}
	}
	opt.ReqActions = reqs.Actions{SatisfySession: act("session"), SatisfyBranch: act("branch"), Clear: act("clear")}
	m2 := New(context.Background(), opt)
	m2.tick = 0
	m2 = drive(t, m2, m2.Init())
	m2 = send(t, m2, tea.WindowSizeMsg{Width: 120, Height: 40})
	m2 = send(t, m2, press("4", "s", "y", "j", "S", "y", "x", "y")...)
	want := "session:1b2c3d4e:commit_plan branch:1b2c3d4e:adr_reviewed clear:1b2c3d4e:adr_reviewed"
	if strings.Join(got, " ") != want {
		t.Fatalf("actions %v, want %s", got, want)
	}
	if fr := plain(m2); !strings.Contains(fr, "clear failed: locked") || !strings.Contains(fr, "1/2 satisfied") {
		t.Fatalf("frame after actions:\n%s", fr)
	}
}

func TestMouseWheelAndClick(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	m := start(t, f, 120, 40)
	m = send(t, m, tea.MouseWheelMsg{X: 5, Y: 5, Button: tea.MouseWheelDown})
	if m.selected != idBg {
		t.Fatalf("wheel over the list: selected %q, want %s", m.selected, idBg)
	}
	before := m.det.View()
	m = send(t, m, tea.MouseWheelMsg{X: 80, Y: 10, Button: tea.MouseWheelDown})
	if m.det.View() == before {
		t.Fatal("wheel over the detail did not scroll it")
	}
	// Click the third session's row (rows are two lines, below 2 header lines).
	m = send(t, m, tea.MouseClickMsg{X: 5, Y: 2 + 4, Button: tea.MouseLeft})
	if m.selected != idEnded {
		t.Fatalf("click: selected %q, want %s", m.selected, idEnded)
	}
}

func TestResizeKeepsFrameInBounds(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	m := start(t, f, 120, 40)
	for _, sz := range [][2]int{{40, 30}, {200, 60}, {60, 12}, {100, 30}, {20, 5}} {
		m = send(t, m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		checkSize(t, "resize", plain(m), sz[0], sz[1])
	}
}

func TestNoColorHasNoColorCodes(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	m := start(t, f, 120, 40) // fixture options set NoColor
	raw := m.Render()
	for _, sgr := range []string{"[38;", "[48;", "[3", "[9"} {
		for _, part := range strings.Split(raw, "\x1b")[1:] {
			if strings.HasPrefix(part, sgr) && !strings.HasPrefix(part, "[39") {
				t.Fatalf("NO_COLOR frame has a color sequence %q", part[:min(len(part), 12)])
			}
		}
	}
	if !strings.Contains(raw, "\x1b[7m") && !strings.Contains(raw, "\x1b[1;7m") && !strings.Contains(raw, "7m") {
		t.Fatal("NO_COLOR frame marks nothing in reverse video (the selection must stay visible)")
	}
	if !NoColorEnv(func(string) string { return "1" }) || NoColorEnv(func(string) string { return "" }) {
		t.Fatal("NoColorEnv")
	}
}

func TestChangeRereadsOnlyWhatChanged(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	m := start(t, f, 120, 40)
	// A new session starts: its folder and state appear, and a log grows.
	id := "9b2c3d4e-0000-4000-8000-000000000009"
	s := bgSession(f.layout.Root)
	s.SessionID, s.CreatedAt, s.Status = id, ago(time.Second), "working"
	f.writeState(t, s)
	f.register(t, id, alivePID)
	f.log(t, "UserPromptSubmit", id, ago(time.Second), map[string]any{"prompt": "brand new session prompt"})
	m = send(t, m, changeMsg{c: watch.Change{Rescan: true, Sessions: map[string]bool{id: true}, Logs: map[string]bool{f.layout.LogPath("user_prompt_submit"): true}}})
	fr := plain(m)
	if m.selected != id || !strings.Contains(fr, "9b2c3d4e") || !strings.Contains(fr, "brand new session prompt") {
		t.Fatalf("follow did not show the new session:\n%s", fr)
	}
	// The busy session's state changes: only it is reread.
	b := busySession(f.layout.Root)
	b.Status = state.StatusNeedsInput
	f.writeState(t, b)
	m = send(t, m, changeMsg{c: watch.Change{Sessions: map[string]bool{idBusy: true}}})
	if !strings.Contains(plain(m), "needs input") {
		t.Fatalf("status change not shown:\n%s", plain(m))
	}
	// Follow is off after moving by hand; a changed session does not steal
	// the selection.
	m = send(t, m, press("down")...)
	sel := m.selected
	m = send(t, m, changeMsg{c: watch.Change{Sessions: map[string]bool{id: true}}})
	if m.selected != sel {
		t.Fatalf("selection moved from %s to %s with follow off", sel, m.selected)
	}
}

func TestDecisionsKeyTogglesDecisionsOnly(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	f.decisions(t)
	m := start(t, f, 120, 40)
	m = send(t, m, press("3")...)
	fr := plain(m)
	if !strings.Contains(fr, "PreToolUse Bash go test") || !strings.Contains(fr, "Decision requirements:pre_commit_review deny PreToolUse") {
		t.Fatalf("events pane should interleave events and decisions:\n%s", fr)
	}
	if !strings.Contains(fr, "d decisions only") {
		t.Fatalf("footer should offer d (decisions only):\n%s", fr)
	}
	m = send(t, m, press("d")...)
	fr = plain(m)
	if !m.ev.DecisionsOnly() || strings.Contains(fr, "go test") || strings.Contains(fr, "UserPromptSubmit") {
		t.Fatalf("d: want decisions only:\n%s", fr)
	}
	for _, want := range []string{
		"Decisions · 1b2c3d4e",
		"requirements:commit_plan allow PreToolUse: satisfied",
		"requirements:pre_commit_review deny PreToolUse: Review",
		"strategy:clean-state block Stop (dry run): uncommitted",
		"feedback block SubagentStop (kept working): run the tests next",
		"d all events",
	} {
		if !strings.Contains(fr, want) {
			t.Errorf("d: missing %q in:\n%s", want, fr)
		}
	}
	m = send(t, m, press("a")...)
	if fr = plain(m); !strings.Contains(fr, "Decisions · all sessions") || strings.Contains(fr, "sh run-tests.sh") {
		t.Fatalf("d then a: want every session's decisions only:\n%s", fr)
	}
	listed := false
	for _, g := range m.helpGroups() {
		for _, b := range g.keys {
			listed = listed || g.title == "Events" && b.Help().Key == "d" && b.Help().Desc == "all events"
		}
	}
	if !listed {
		t.Fatal("? help should list d (all events) under Events")
	}
	m = send(t, m, press("d")...)
	if fr = plain(m); m.ev.DecisionsOnly() || !strings.Contains(fr, "sh run-tests.sh") || !strings.Contains(fr, "Events · all sessions") {
		t.Fatalf("d again: want all events back:\n%s", fr)
	}
}

func TestHeaderStrategiesFollowConfigChanges(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	m := start(t, f, 120, 40)
	header := func() string { return strings.SplitN(plain(m), "\n", 2)[0] }
	if h := header(); strings.Contains(h, "strateg") {
		t.Fatalf("no config: header %q", h)
	}
	write := func(cfg string) {
		t.Helper()
		if err := os.WriteFile(f.layout.ConfigPath(), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		// Only the config changed: the model rereads it and nothing else.
		next, cmd := m.Update(changeMsg{c: watch.Change{Config: true}})
		m = next.(Model)
		if cmd == nil {
			t.Fatal("a config change issued no command")
		}
		if _, ok := cmd().(strategiesMsg); !ok {
			t.Fatalf("a config change should reread only the config, got %T", cmd())
		}
		m = drive(t, m, cmd)
	}
	write("strategies:\n  token-budget: {}\n  clean-state:\n    require_files: [README.md]\n    dry_run: true\n")
	if h := header(); !strings.Contains(h, "strategies: token-budget, clean-state (dry run)") {
		t.Fatalf("two strategies, one dry-run: header %q", h)
	}
	write("dry_run: true\nstrategies:\n  token-budget: {}\n")
	if h := header(); !strings.Contains(h, "strategies: token-budget (dry run)") {
		t.Fatalf("global dry_run: header %q", h)
	}
	write("strategies:\n  clean-state: {}\n  long-running: {}\n")
	if h := header(); !strings.Contains(h, "strategies: clean-state, long-running") || strings.Contains(h, "conflict") {
		t.Fatalf("two strategies blocking at Stop: header %q", h)
	}
	write("strategies:\n  token-budget: {enabled: false}\n")
	if h := header(); strings.Contains(h, "strateg") {
		t.Fatalf("disabled only: header %q", h)
	}
	// At 40 columns the header is one line and never wraps.
	write("strategies:\n  token-budget: {}\n  clean-state: {}\n")
	m = send(t, m, tea.WindowSizeMsg{Width: 40, Height: 30})
	if h := header(); text.Width(h) > 40 || !strings.HasPrefix(h, "spcstr") {
		t.Fatalf("40 columns: header %q", h)
	}
	// The strategies are decoration the Reqs and Loop panes repeat: at
	// 64 columns they give way to the figures, at 80 their count fits.
	m = send(t, m, tea.WindowSizeMsg{Width: 64, Height: 30})
	if h := header(); strings.Contains(h, "strateg") || !strings.Contains(h, "~$0.63") {
		t.Fatalf("64 columns: want the cost and no strategies, header %q", h)
	}
	m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 30})
	if h := header(); !strings.Contains(h, "2 strategies") || !strings.Contains(h, "~$0.63") {
		t.Fatalf("80 columns: want the count and the cost, header %q", h)
	}
}

// In the events pane, "/" types a search (q is text then, not quit), and
// esc clears a search before it goes back to the sessions.
func TestEventsFindKeys(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	m := start(t, f, 120, 40)
	m = send(t, m, press("3", "/", "q", "q", "q", "enter")...)
	if m.focus != PaneEvents || m.ev.Find() != "qqq" {
		t.Fatalf("focus %v, find %q", m.focus, m.ev.Find())
	}
	if !strings.Contains(plain(m), "No event matches the search.") {
		t.Fatalf("no match shown:\n%s", plain(m))
	}
	m = send(t, m, press("esc")...)
	if m.focus != PaneEvents || m.ev.Find() != "" {
		t.Fatalf("esc: focus %v, find %q", m.focus, m.ev.Find())
	}
	m = send(t, m, press("esc")...)
	if m.focus != PaneSessions {
		t.Fatalf("second esc: focus %v", m.focus)
	}
}
