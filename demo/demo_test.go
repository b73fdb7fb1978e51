package demo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/state"
)

func TestBundledSessions(t *testing.T) {
	ss, err := Sessions()
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 4 {
		t.Fatalf("%d sessions bundled", len(ss))
	}
	seen := map[string]bool{}
	for _, s := range ss {
		if !state.ValidSessionID(s.ID) || len(s.Events) < 10 || len(s.Transcript) == 0 {
			t.Fatalf("%s: id %q, %d events, %d transcript lines", s.Name, s.ID, len(s.Events), len(s.Transcript))
		}
		for i, ev := range s.Events {
			seen[ev.Name()] = true
			if i > 0 && ev.T < s.Events[i-1].T {
				t.Fatalf("%s: events out of order at %d", s.Name, i)
			}
			if p := string(ev.Payload); strings.Contains(p, "/tmp/cc-harness") || strings.Contains(p, "/tmp/tui-rec") || strings.Contains(p, "spcstr-demo-rec") {
				t.Fatalf("%s: a recording path was left in event %d", s.Name, i)
			}
		}
	}
	for _, want := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
		"SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "TaskCreated", "Stop", "SessionEnd"} {
		if !seen[want] {
			t.Errorf("no bundled session has %s", want)
		}
	}
}

func TestDelay(t *testing.T) {
	if d := Delay(0, 1); d != 300*time.Millisecond {
		t.Fatalf("Delay(0,1) = %v", d)
	}
	if d := Delay(time.Minute, 1); d != 2500*time.Millisecond {
		t.Fatalf("long gaps are capped: %v", d)
	}
	if d := Delay(0, 2); d != 150*time.Millisecond {
		t.Fatalf("speed 2 halves: %v", d)
	}
}

// TestPlayThroughRealHook plays every bundled session through a freshly
// built spcstr and checks what the recorder made of them.
func TestPlayThroughRealHook(t *testing.T) {
	if testing.Short() {
		t.Skip("builds spcstr and plays 160 hooks; skipped under -short")
	}
	bin := filepath.Join(t.TempDir(), "spcstr")
	build := exec.Command("go", "build", "-o", bin, "github.com/dylan-gluck/spcstr/cmd/spcstr")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := filepath.Join(t.TempDir(), "proj")
	ctx := context.Background()
	if err := Setup(ctx, dir); err != nil {
		t.Fatal(err)
	}
	ss, _ := Sessions()
	var stderr strings.Builder
	if err := Play(ctx, Options{Exe: bin, Dir: dir, Speed: 50, Stagger: time.Second, Stderr: &stderr}, ss); err != nil {
		t.Fatal(err)
	}
	if stderr.Len() > 0 {
		t.Errorf("hooks wrote to stderr:\n%s", stderr.String())
	}
	l := state.Layout{Root: dir}
	reg := registry.Load(RegistryPath(dir))
	for _, s := range ss {
		st, err := l.Load(s.ID)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if st.Branch != "main" || st.Tokens.Output == 0 || st.ToolCalls() == 0 {
			t.Errorf("%s: branch %q tokens %+v tools %d", s.Name, st.Branch, st.Tokens, st.ToolCalls())
		}
		if s.Stale {
			if st.Status == state.StatusEnded {
				t.Errorf("%s: played as stale, yet ended", s.Name)
			}
			if e, ok := reg.Lookup(s.ID); ok && registry.Alive(e.PPID) {
				t.Errorf("%s: its registry process is alive", s.Name)
			}
		} else if st.Status != state.StatusEnded {
			t.Errorf("%s: status %s, want ended", s.Name, st.Status)
		}
		if s.Name == "background" {
			bg := 0
			for _, a := range st.AgentsHistory {
				if a.Background {
					bg++
				}
			}
			if bg != 2 {
				t.Errorf("background: %d background agents, want 2", bg)
			}
		}
		if s.Name == "feature" {
			// The feedback loop runs to the end: review, test planning
			// and testing all pass.
			fb, err := feedback.Load(l, s.ID)
			if err != nil || fb == nil || fb.State != feedback.StateComplete {
				t.Fatalf("feature: feedback loop %+v, %v", fb, err)
			}
			for _, d := range fb.Domains {
				for _, ph := range d.Phases {
					if ph.Status != feedback.Pass {
						t.Errorf("feature: %s %s is %s", d.Name, ph.Name, ph.Status)
					}
				}
			}
		}
		if s.Name == "compact" && st.Compactions != 1 {
			t.Errorf("compact: %d compactions", st.Compactions)
		}
	}
}
