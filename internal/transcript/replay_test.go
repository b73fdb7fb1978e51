package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEvents: a transcript replays as the hook events it implies, in
// order; subagent lines are skipped.
func TestEvents(t *testing.T) {
	events, sid, err := Events(filepath.Join("testdata", "replay.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if sid != "sess-1" {
		t.Fatalf("session %q", sid)
	}
	var got []string
	for _, e := range events {
		var p map[string]any
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			t.Fatal(err)
		}
		if p["session_id"] != "sess-1" || p["hook_event_name"] != e.Name || p["cwd"] != "/work/p" || !strings.HasSuffix(fmt.Sprint(p["transcript_path"]), "replay.jsonl") {
			t.Errorf("payload %v", p)
		}
		s := e.At.Format("15:04:05") + " " + e.Name
		for _, k := range []string{"source", "prompt", "tool_name", "last_assistant_message", "error"} {
			if v, ok := p[k]; ok {
				s += fmt.Sprintf(" %s=%v", k, v)
			}
		}
		got = append(got, s)
	}
	want := []string{
		"10:00:00 SessionStart source=startup",
		"10:00:00 UserPromptSubmit prompt=fix the bug",
		"10:00:05 PreToolUse tool_name=Edit",
		"10:00:06 PostToolUse tool_name=Edit",
		"10:00:08 PreToolUse tool_name=Bash",
		`10:00:09 PostToolUseFailure tool_name=Bash error="FAIL"`,
		"10:00:11 Stop last_assistant_message=Fixed, tests still fail.",
		"10:01:00 PreCompact",
		"10:01:00 SessionStart source=compact",
		"10:02:00 UserPromptSubmit prompt=and now?",
		"10:02:05 Stop last_assistant_message=Done.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTimeline: the tokens at a moment count only the messages written by
// then, the main agent's last message setting the context.
func TestTimeline(t *testing.T) {
	tl, err := ReadTimeline(filepath.Join("testdata", "replay.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, "2026-01-02T"+s+"Z"); return v }
	tests := []struct {
		at            string
		input, output int64
		ctx           int64
	}{
		{"09:59:59", 0, 0, 0},
		{"10:00:05", 1000, 50, 1000},
		{"10:00:07", 1500, 55, 1000}, // a subagent's usage counts, not its context
		{"10:00:10", 6000, 135, 2500},
		{"10:03:00", 6300, 145, 300},
	}
	for _, tt := range tests {
		got := tl.Until(at(tt.at))
		if got.Input != tt.input || got.Output != tt.output || got.ContextUsed != tt.ctx {
			t.Errorf("at %s: %+v, want in %d out %d ctx %d", tt.at, got, tt.input, tt.output, tt.ctx)
		}
	}
	if tl, err := ReadTimeline(filepath.Join(t.TempDir(), "missing.jsonl")); err != nil || tl.Until(time.Now()).Input != 0 {
		t.Errorf("missing transcript: %v", err)
	}
	dir := t.TempDir()
	if _, _, err := Events(dir); err == nil {
		t.Error("a folder replayed as a transcript")
	}
	notTranscript := filepath.Join(dir, "x.jsonl")
	_ = os.WriteFile(notTranscript, []byte("{}\n"), 0o644)
	if _, _, err := Events(notTranscript); err == nil || !strings.Contains(err.Error(), "not a Claude Code transcript") {
		t.Errorf("not a transcript: %v", err)
	}
}
