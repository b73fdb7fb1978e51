package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/otelcursor"
	"github.com/dylan-gluck/spcstr/state"
)

func TestCheckOtel(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	logLine := `{"timestamp":"2026-11-24T11:00:00Z","session_id":"s","event":"Stop","input":{}}`
	cases := []struct {
		name   string
		log    int // entries in stop.json
		cursor string
		// shipped: the cursor's offset is the whole log (else 0)
		shipped bool
		updated time.Time
		want    Severity // "" for no finding
		msg     string
	}{
		{name: "never shipped", log: 10, want: ""},
		{name: "up to date", log: 10, cursor: "ok", shipped: true, updated: now.Add(-time.Hour), want: OK, msg: "up to date"},
		{name: "a little behind", log: 10, cursor: "ok", updated: now.Add(-time.Hour), want: Info, msg: "to ship"},
		{name: "behind for a day", log: 10, cursor: "ok", updated: now.Add(-25 * time.Hour), want: Warning, msg: "far behind"},
		{name: "far behind", log: 20000, cursor: "ok", updated: now.Add(-time.Minute), want: Warning, msg: "far behind"},
		{name: "corrupt", log: 1, cursor: "{", want: Warning, msg: "damaged"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			l := state.Layout{Root: root}
			if err := os.MkdirAll(l.LogsDir(), 0o755); err != nil {
				t.Fatal(err)
			}
			body := "[\n" + strings.TrimSuffix(strings.Repeat(logLine+",\n", tc.log), ",\n") + "\n]"
			logPath := filepath.Join(l.LogsDir(), "stop.json")
			if err := os.WriteFile(logPath, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			switch tc.cursor {
			case "":
			case "ok":
				c := otelcursor.New()
				if tc.shipped {
					fi, _ := os.Stat(logPath)
					c.Files["stop.json"] = &otelcursor.File{ID: otelcursor.FileID(fi), Offset: int64(len(body)) - 2}
				}
				if err := c.Save(l, tc.updated); err != nil {
					t.Fatal(err)
				}
			default:
				if err := os.WriteFile(otelcursor.Path(l), []byte(tc.cursor), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got := checkOtel(context.Background(), &Env{Root: root, Now: now})
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("want no finding, got %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Severity != tc.want || !strings.Contains(got[0].Message, tc.msg) {
				t.Fatalf("want one %s finding saying %q, got %+v", tc.want, tc.msg, got)
			}
			if tc.want == Warning && got[0].Fix == "" {
				t.Errorf("a warning without a fix")
			}
			if tc.cursor == "{" {
				if _, err := os.Stat(otelcursor.Path(l)); err != nil {
					t.Errorf("doctor moved the damaged cursor: %v", err)
				}
			}
		})
	}
}
