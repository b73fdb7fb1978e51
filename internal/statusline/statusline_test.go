package statusline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/state"
)

// payload is a status line input of the documented shape (Claude Code
// 2.1.330, a Pro/Max subscriber's: rate_limits present).
const payload = `{"session_id":"s-1","transcript_path":"/t/s-1.jsonl","cwd":"%[1]s","prompt_id":"p",
"model":{"id":"claude-opus-5-5","display_name":"Opus"},"workspace":{"current_dir":"%[1]s","project_dir":"%[1]s"},"version":"2.1.330",
"cost":{"total_cost_usd":1.234,"total_duration_ms":1000,"total_api_duration_ms":900,"total_lines_added":1,"total_lines_removed":0},
"context_window":{"total_input_tokens":196700,"total_output_tokens":5100,"context_window_size":200000,"current_usage":{"input_tokens":10},"used_percentage":42.4,"remaining_percentage":57.6},
"rate_limits":{"five_hour":{"used_percentage":37.2,"resets_at":1795930000},"seven_day":{"used_percentage":12,"resets_at":"2026-12-01T00:00:00Z"}}}`

func project(t *testing.T, withSession bool) (state.Layout, string) {
	t.Helper()
	dir := t.TempDir()
	l := state.Layout{Root: dir}
	if err := os.MkdirAll(filepath.Join(dir, state.DirName, "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	if withSession {
		if _, err := l.Update(context.Background(), "s-1", time.Unix(1795920000, 0), state.UpdateOptions{}, func(*state.Session, bool) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return l, strings.ReplaceAll(payload, "%[1]s", dir)
}

func run(t *testing.T, input, theirs string) string {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), Options{Stdin: strings.NewReader(input), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Now: func() time.Time { return time.Unix(1795920100, 0) }, Run: theirs})
	if code != 0 || errb.Len() > 0 {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
	return out.String()
}

// The line says the model, context, Claude Code's figure and both
// windows; the session's state.json keeps the live figure, its tokens and
// the windows with their reset times.
func TestRecordAndLine(t *testing.T) {
	l, in := project(t, true)
	if got, want := run(t, in, ""), "Opus · ctx 42% · $1.23 · 5h 37% · 7d 12%\n"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	s, err := l.Load("s-1")
	if err != nil {
		t.Fatal(err)
	}
	lv := s.Live
	if lv == nil || lv.USD != 1.234 || lv.Input != 196700 || lv.Output != 5100 || lv.ContextPercent != 42.4 {
		t.Fatalf("live figure %+v", lv)
	}
	if lv.FiveHour == nil || lv.FiveHour.UsedPercent != 37.2 || !lv.FiveHour.ResetsAt.Equal(time.Unix(1795930000, 0)) {
		t.Errorf("five_hour %+v", lv.FiveHour)
	}
	if lv.SevenDay == nil || lv.SevenDay.UsedPercent != 12 || lv.SevenDay.ResetsAt.Format(time.RFC3339) != "2026-12-01T00:00:00Z" {
		t.Errorf("seven_day %+v", lv.SevenDay)
	}
}

// A session the hooks have not started is not created by the status
// line; without rate limits (an API key) the line leaves them out.
func TestNoSessionNoWindows(t *testing.T) {
	l, in := project(t, false)
	in = in[:strings.Index(in, `,
"rate_limits"`)] + "}"
	if got, want := run(t, in, ""), "Opus · ctx 42% · $1.23\n"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(l.SessionsDir(), "s-1")); !os.IsNotExist(err) {
		t.Errorf("the status line created a session folder: %v", err)
	}
}

// The user's own status line runs with the same input and comes first.
func TestTheirsFirst(t *testing.T) {
	_, in := project(t, true)
	got := run(t, in, `read -r line; printf 'mine:%s\nsecond line\n' "$(printf %s "$line" | cut -c1-14)"`)
	if want := `mine:{"session_id": │ Opus · ctx 42% · $1.23 · 5h 37% · 7d 12%` + "\n"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
}

// Garbage in: the line is empty (or theirs), exit 0, nothing recorded.
func TestGarbage(t *testing.T) {
	if got := run(t, "not json", ""); got != "\n" {
		t.Errorf("line %q", got)
	}
}
