package e2e

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/e2e/harness"
	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
)

// TestStatusLineInteractive runs the real interactive client in tmux with
// `spcstr statusline` as its status line (the harness README's recipe):
// the line shows Claude Code's figure, and the live figure spcstr records
// from it equals the figure Claude Code writes in its cost-state line at
// SessionEnd.
func TestStatusLineInteractive(t *testing.T) {
	requireHarness(t)
	file, err := filepath.Abs(filepath.Join("testdata", "cost", "statusline.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	if keep := os.Getenv("SPCSTR_E2E_KEEP"); keep != "" {
		out = filepath.Join(keep, "statusline", "out")
		os.RemoveAll(filepath.Dir(out))
	}
	hook := "SPCSTR_REGISTRY=" + harness.ShellQuote(filepath.Join(out, "registry.json")) + " " + harness.ShellQuote(spcstrBin) + " hook"
	ctx := t.Context()
	r, err := env.Start(ctx, harness.InteractiveOptions{Options: harness.Options{Scenario: file, HookCommand: hook, OutDir: out},
		StatusLine: harness.ShellQuote(spcstrBin) + " statusline"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fail := func(err error) {
		t.Helper()
		t.Fatalf("%v\nscreen:\n%s", err, r.Screen())
	}
	if err := harness.Wait(ctx, 90*time.Second, "the prompt box", func() bool { return strings.Contains(r.Screen(), "❯") }); err != nil {
		fail(err)
	}
	if err := r.Type("Say hello."); err != nil {
		fail(err)
	}
	if err := harness.Wait(ctx, 120*time.Second, "the turn's Stop hook", func() bool { return r.Recorded("Stop") > 0 }); err != nil {
		fail(err)
	}
	sessions := filepath.Join(r.Project, ".spcstr", "sessions")
	var l = state.Layout{Root: r.Project}
	id := ""
	load := func() *state.Session {
		ents, _ := os.ReadDir(sessions)
		for _, e := range ents {
			id = e.Name()
		}
		s, _ := l.Load(id)
		return s
	}
	// The status line runs after the answer (the session's only request):
	// wait until it recorded a figure and shows it.
	if err := harness.Wait(ctx, 60*time.Second, "the status line's live figure, on screen", func() bool {
		s := load()
		return s != nil && s.Live != nil && s.Live.USD > 0 && strings.Contains(r.Screen(), fmt.Sprintf("· $%.2f", s.Live.USD))
	}); err != nil {
		fail(err)
	}
	live := *load().Live
	if err := r.Type("/exit"); err != nil {
		fail(err)
	}
	if err := harness.Wait(ctx, 60*time.Second, "SessionEnd", func() bool { return r.Recorded("SessionEnd") > 0 }); err != nil {
		fail(err)
	}
	s := load()
	if s.ClaudeCost == nil {
		t.Fatalf("no cost-state line recorded at SessionEnd")
	}
	if math.Abs(live.USD-s.ClaudeCost.USD) > 1e-9 {
		t.Errorf("the live figure $%.6f differs from Claude Code's at SessionEnd $%.6f", live.USD, s.ClaudeCost.USD)
	}
	if sc := pricing.Default().Session(s); sc.Source != pricing.SourceClaudeCode || math.Abs(sc.USD-live.USD) > 1e-9 {
		t.Errorf("after SessionEnd the figure is %s $%.6f, want Claude Code's $%.6f", sc.Source, sc.USD, live.USD)
	}
}
