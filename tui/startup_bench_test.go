package tui

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/state"
)

// The dashboard's startup on a large project: 1,000 sessions and 1,000,000
// log entries (the README's P5). The first frame must come within 500 ms
// and the process stay under 150 MiB: the dashboard reads every state.json
// once (in chunks, newest first) and only the tails of the logs.

const (
	p5Sessions = 1000
	p5Entries  = 1_000_000
)

var p5Events = []string{"pre_tool_use", "post_tool_use", "post_tool_batch", "user_prompt_submit", "stop",
	"subagent_start", "subagent_stop", "notification", "session_start", "message_display"}

// p5Project returns a generated project: $SPCSTR_P5_DIR when set (made
// there once and reused), else a fresh temporary folder.
func p5Project(b *testing.B) string {
	b.Helper()
	dir := os.Getenv("SPCSTR_P5_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	marker := filepath.Join(dir, ".p5-complete")
	if _, err := os.Stat(marker); err == nil {
		return dir
	}
	start := time.Now()
	if err := generateP5(dir); err != nil {
		b.Fatal(err)
	}
	os.WriteFile(marker, nil, 0o644)
	b.Logf("generated %d sessions and %d log entries in %v", p5Sessions, p5Entries, time.Since(start).Round(time.Millisecond))
	return dir
}

func p5ID(i int) string { return fmt.Sprintf("%08x-1111-4222-8333-%012d", i*2654435761%0xffffffff, i) }

func generateP5(root string) error {
	l := state.Layout{Root: root}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range p5Sessions {
		id := p5ID(i)
		at := base.Add(time.Duration(i) * 7 * time.Minute)
		s := busySession(root)
		s.SessionID, s.CreatedAt = id, at
		s.UpdatedAt, s.LastEventAt = at.Add(20*time.Minute), at.Add(20*time.Minute)
		s.Status = []string{state.StatusEnded, state.StatusWaiting, state.StatusWorking}[i%3]
		for k := range 15 {
			s.Prompts = append(s.Prompts, state.Prompt{Timestamp: at, Prompt: fmt.Sprintf("prompt %d of session %d: %s", k, i, strings.Repeat("words ", 40))})
		}
		for k := range 40 {
			s.Files.Read = append(s.Files.Read, fmt.Sprintf("pkg/module%d/file%d.go", k%7, k))
		}
		m := at.Unix() / 60
		s.Activity = nil
		for k := range 20 {
			s.Activity = append(s.Activity, state.MinuteCount{Minute: m + int64(k), Count: k%9 + 1})
		}
		p, _ := l.StatePath(id)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		data, _ := json.Marshal(s)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
		mt := s.UpdatedAt
		os.Chtimes(p, mt, mt)
	}
	if err := os.MkdirAll(l.LogsDir(), 0o755); err != nil {
		return err
	}
	per := p5Entries / len(p5Events)
	pad := strings.Repeat("y", 120)
	for ei, ev := range p5Events {
		f, err := os.Create(l.LogPath(ev))
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		w.WriteString("[\n")
		name := strings.ReplaceAll(ev, "_", "")
		for k := range per {
			if k > 0 {
				w.WriteString(",\n")
			}
			sess := (k*len(p5Events) + ei) * p5Sessions / p5Entries
			ts := base.Add(time.Duration(sess)*7*time.Minute + time.Duration(k%1000)*time.Millisecond)
			fmt.Fprintf(w, `{"timestamp":%q,"session_id":%q,"event":%q,"input":{"tool_name":"Bash","tool_input":{"command":"echo %d %s"}},"outcome":{"duration_ms":2.5}}`,
				ts.Format(time.RFC3339Nano), p5ID(sess), name, k, pad)
		}
		w.WriteString("\n]\n")
		if err := w.Flush(); err != nil {
			return err
		}
		f.Close()
	}
	return nil
}

// firstFrame runs the dashboard's startup until its first full frame (the
// session list with the newest sessions read, the log tails read) and
// returns the model and the frame.
func firstFrame(b *testing.B, root string) (Model, string, time.Duration) {
	start := time.Now()
	m := New(context.Background(), Options{Layout: state.Layout{Root: root}, RegistryPath: filepath.Join(root, "none.json"), NoWatch: true, NoColor: true})
	m.tick = 0
	next, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m = next.(Model)
	queue := []tea.Cmd{m.Init()}
	var rest []tea.Cmd
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		if bm, ok := msg.(tea.BatchMsg); ok {
			queue = append(queue, bm...)
			continue
		}
		if msg == nil {
			continue
		}
		nm, more := m.Update(msg)
		m = nm.(Model)
		if m.Ready() {
			rest = append(rest, more)
		} else {
			queue = append(queue, more)
		}
	}
	fr := m.Render()
	d := time.Since(start)
	// Read the remaining sessions, as the program goes on doing.
	m = drive(b, m, tea.Batch(rest...))
	return m, fr, d
}

// BenchmarkP5FirstFrame reports the time to the first frame and the RSS
// once every session has been read.
func BenchmarkP5FirstFrame(b *testing.B) {
	root := p5Project(b)
	runtime.GC()
	debug.FreeOSMemory()
	var total time.Duration
	var m Model
	var fr string
	for i := 0; i < b.N; i++ {
		var d time.Duration
		m, fr, d = firstFrame(b, root)
		total += d
	}
	if shown, all := m.list.Len(); all != p5Sessions || shown != p5Sessions {
		b.Fatalf("%d/%d sessions listed", shown, all)
	}
	if !strings.Contains(fr, "sessions") {
		b.Fatalf("first frame:\n%s", fr)
	}
	runtime.GC()
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/first-frame")
	b.ReportMetric(float64(rssKiB(b, "VmRSS"))/1024, "MiB-rss")
	b.ReportMetric(float64(rssKiB(b, "VmHWM"))/1024, "MiB-peak-rss")
	runtime.KeepAlive(m)
}

func rssKiB(b *testing.B, field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field+":") {
			n, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return n
		}
	}
	return 0
}
