package tui

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/logs"
)

// timelineEvents is the size of the session the timeline benchmark draws.
const timelineEvents = 100_000

// writeLongSession writes a log of timelineEvents PreToolUse entries of
// the busy session over the last ten hours (straight into the log's
// format: appending each would measure the recorder, not the timeline).
func writeLongSession(b *testing.B, f *fixture) {
	b.Helper()
	var buf bytes.Buffer
	buf.WriteString("[\n")
	span := 10 * time.Hour
	in, _ := json.Marshal(map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}})
	for i := 0; i < timelineEvents; i++ {
		at := fixedNow.Add(-span + time.Duration(i)*span/timelineEvents)
		e := logs.Entry{Timestamp: at, SessionID: idBusy, Event: "PreToolUse", Input: in}
		line, err := e.Encode()
		if err != nil {
			b.Fatal(err)
		}
		if i > 0 {
			buf.WriteString(",\n")
		}
		buf.Write(line)
	}
	buf.WriteString("\n]\n")
	if err := os.MkdirAll(f.layout.LogsDir(), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(f.layout.LogPath(logs.Name(logs.Events, "PreToolUse")), buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkTimelineFirstFrame reports the time from t to the timeline's
// first full frame for a session of 100,000 events (goal ≤ 300 ms).
func BenchmarkTimelineFirstFrame(b *testing.B) {
	f := newFixture(b)
	f.populate(b)
	writeLongSession(b, f)
	m := start(b, f, 120, 40)
	var total time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		next := send(b, m, press("t")...)
		fr := next.Render()
		total += time.Since(t0)
		if !next.showTimeline || !strings.Contains(fr, "•") {
			b.Fatalf("no tool marks in the timeline:\n%s", fr)
		}
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/timeline-first-frame")
}
