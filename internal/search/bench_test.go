package search

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// The search figure of go run ./bench: a project with 1,000,000 logged
// events (1,000 sessions of prompts, commands, file edits, failures and
// their tool output, about 400 MB) searched for a few entries' text. Goal:
// under 2 s.

const benchEntries = 1_000_000

// benchProject writes a generated project: one log per event type, the
// entries of 1,000 sessions interleaved in time. The text looked for is
// in the prompt of 5 sessions and the commands of 20 entries.
func benchProject(b *testing.B) state.Layout {
	b.Helper()
	l := state.Layout{Root: b.TempDir()}
	if err := os.MkdirAll(l.LogsDir(), 0o755); err != nil {
		b.Fatal(err)
	}
	type gen struct {
		event string
		input func(k int) string
	}
	gens := []gen{
		{"UserPromptSubmit", func(k int) string {
			text := "Refactor the module%d loader and keep the public API stable; explain the change"
			if k%40_000 == 7 {
				text = "Find out why the healthz check is flaky on CI (module%d) and fix it"
			}
			return fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","prompt":"`+text+`"}`, k%97)
		}},
		{"PreToolUse", func(k int) string {
			cmd := fmt.Sprintf("go test ./pkg/module%d/... -run TestLoader%d", k%31, k%7)
			if k%10_000 == 3 {
				cmd = "go test ./server -run TestHealthzFlaky -count=20"
			}
			return `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + cmd + `","description":"Run the package tests"}}`
		}},
		{"PostToolUse", func(k int) string {
			return fmt.Sprintf(`{"hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"/home/dev/proj/pkg/module%d/file%d.go","old_string":"return nil","new_string":"return fmt.Errorf(\"load: %%w\", err)"},"tool_response":{"filePath":"/home/dev/proj/pkg/module%d/file%d.go","structuredPatch":[]}}`, k%31, k%53, k%31, k%53)
		}},
		{"PostToolUseFailure", func(k int) string {
			return fmt.Sprintf(`{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","error":"exit status 1\n--- FAIL: TestLoader%d (0.01s)\n    loader_test.go:%d: unexpected EOF"}`, k%7, k%300)
		}},
		{"Stop", func(k int) string {
			return `{"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Done: the loader now wraps its errors and the tests pass."}`
		}},
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	per := benchEntries / len(gens)
	for _, g := range gens {
		f, err := os.Create(l.LogPath(logs.Name(logs.Events, g.event)))
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		w.WriteString("[\n")
		for k := range per {
			if k > 0 {
				w.WriteString(",\n")
			}
			sess := k * 1000 / per
			ts := base.Add(time.Duration(k) * 50 * time.Millisecond)
			fmt.Fprintf(w, `{"timestamp":%q,"session_id":"%08x-7a1c-4d2e-9f30-%012d","event":%q,"input":%s,"outcome":{"duration_ms":3.1}}`,
				ts.Format(time.RFC3339Nano), sess*2654435761%0xffffffff, sess, g.event, g.input(k))
		}
		w.WriteString("\n]\n")
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	return l
}

// BenchmarkSearch1M reports the time to search 1,000,000 entries for a
// lower-case text (matched in any case, the slower path), streaming every
// match, and the same for a case-sensitive text.
func BenchmarkSearch1M(b *testing.B) {
	l := benchProject(b)
	var size int64
	_ = filepath.Walk(l.LogsDir(), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			size += fi.Size()
		}
		return nil
	})
	b.SetBytes(size)
	b.ResetTimer()
	var folded, exact time.Duration
	for i := 0; i < b.N; i++ {
		for _, q := range []struct {
			text string
			want int
			d    *time.Duration
		}{
			{"healthz check is flaky", 5, &folded},
			{"TestHealthzFlaky", 20, &exact},
		} {
			start := time.Now()
			n := 0
			st, err := Run(context.Background(), l, Query{Text: q.text}, func(Match) error { n++; return nil })
			*q.d += time.Since(start)
			if err != nil || n != q.want {
				b.Fatalf("%q: %d matches (want %d), %+v, %v", q.text, n, q.want, st, err)
			}
		}
	}
	b.ReportMetric(folded.Seconds()/float64(b.N), "s/search-1M")
	b.ReportMetric(exact.Seconds()/float64(b.N), "s/search-1M-exact")
	b.ReportMetric(float64(size)/(1<<20), "MiB-logs")
}
