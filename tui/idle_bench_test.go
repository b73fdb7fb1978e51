package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/state"
)

// idleSessions is the size of the idle benchmark's project: a day of
// sessions replayed into one project (all ended or stale by now).
const idleSessions = 76

// idleSeconds is how long the idle benchmark measures (SPCSTR_IDLE_SECONDS
// overrides it).
func idleSeconds() time.Duration {
	if n, err := strconv.Atoi(os.Getenv("SPCSTR_IDLE_SECONDS")); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return 20 * time.Second
}

// idleProject writes idleSessions sessions, each with a title, activity,
// tools, files, prompts and log entries, none of them live.
func idleProject(t testing.TB) string {
	f := newFixture(t)
	now := time.Now().UTC()
	for i := range idleSessions {
		id := fmt.Sprintf("1d1e%04d-0000-4000-8000-%012d", i, i)
		s := busySession(f.layout.Root)
		s.SessionID = id
		s.CreatedAt = now.Add(-time.Duration(i+2) * 10 * time.Minute)
		s.UpdatedAt = now.Add(-time.Duration(i+1) * 10 * time.Minute)
		s.LastEventAt = s.UpdatedAt
		s.Title, s.TitleSource = fmt.Sprintf("Session %d: add a healthz endpoint and get it reviewed", i), state.TitlePrompt
		if i%3 == 0 {
			s.Status, s.EndReason = state.StatusEnded, "prompt_input_exit"
		}
		min0 := s.UpdatedAt.Unix() / 60
		s.Activity = nil
		for m := int64(0); m < 20; m++ {
			s.Activity = append(s.Activity, state.MinuteCount{Minute: min0 - 19 + m, Count: int(1 + (m*7+int64(i))%9)})
		}
		f.writeState(t, s)
		f.log(t, "UserPromptSubmit", id, s.CreatedAt, map[string]any{"prompt": s.Title})
		f.log(t, "PreToolUse", id, s.UpdatedAt, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}})
	}
	return f.layout.Root
}

// cpuOver is the process's CPU time over d, as a percentage of one core.
func cpuOver(b *testing.B, pid int, d time.Duration) float64 {
	c0 := cpuTicks(b, pid)
	time.Sleep(d)
	c1 := cpuTicks(b, pid)
	return float64(c1-c0) / 100 / d.Seconds() * 100
}

// BenchmarkTmuxIdleCPU measures the dashboard's CPU use while nothing
// changes: spcstr tui on 76 sessions in a 120×40 tmux pane, over 20 s
// (goal < 0.5 % of a core). Its baselines, in the same run and the same
// tmux: the least a Bubble Tea program costs idle (bench/tuifloor, one
// fixed frame) at the dashboard's frame rate and at Bubble Tea's default.
func BenchmarkTmuxIdleCPU(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc/<pid>/stat")
	}
	root := idleProject(b)
	d := idleSeconds()

	floorBin := filepath.Join(b.TempDir(), "tuifloor")
	if out, err := exec.Command("go", "build", "-o", floorBin, "github.com/dylan-gluck/spcstr/bench/tuifloor").CombinedOutput(); err != nil {
		b.Fatalf("build tuifloor: %v\n%s", err, out)
	}
	floorAt := func(fps int) float64 {
		f := startPane(b, root, "", floorBin, fmt.Sprintf("exec env TERM=xterm-256color %s -fps %d", floorBin, fps), 120, 40)
		defer f.run("kill-server")
		time.Sleep(time.Second)
		return cpuOver(b, f.pid, d/2)
	}
	var dash, floor, floor60 float64
	for i := 0; i < b.N; i++ {
		p := startTUIAt(b, root, 120, 40)
		p.waitFor(fmt.Sprintf("%d sessions", idleSessions), 10*time.Second)
		time.Sleep(2 * time.Second) // the rest of the startup reads
		dash = cpuOver(b, p.pid, d)
		p.run("kill-server")
		floor = floorAt(FrameRate)
		floor60 = floorAt(60)
	}
	b.ReportMetric(dash, "%cpu-idle-76")
	b.ReportMetric(floor, "%cpu-idle-floor")
	b.ReportMetric(floor60, "%cpu-idle-floor-60fps")
}
