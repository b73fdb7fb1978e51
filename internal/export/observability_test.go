package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/export"
	"github.com/dylan-gluck/spcstr/recorder"
	"github.com/dylan-gluck/spcstr/state"
)

// TestGoldenObservability: a session whose only gate result was
// token-budget's EMERGENCY warning, played through the recorder with the
// real strategy. The export shows the warning (not "No gate or strategy
// decided anything"), the Timeline with the warning and the
// threshold_crossed custom event, no Errors, and the Custom Events.
func TestGoldenObservability(t *testing.T) {
	root := filepath.Join(t.TempDir(), "project")
	for _, d := range []string{".spcstr", ".git"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(rel, content string) {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/HEAD", "ref: refs/heads/main\n")
	write(".spcstr/config.yaml", "strategies:\n  token-budget: {}\n")
	// The transcript: 171,000 of 200,000 tokens in the context (85.5%).
	write("transcript.jsonl", `{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5","usage":{"input_tokens":1000,"output_tokens":200,"cache_read_input_tokens":170000,"cache_creation_input_tokens":0}}}`+"\n")
	const id = "0b5e-warning"
	env := map[string]string{"CLAUDE_PROJECT_DIR": root, "SPCSTR_REGISTRY": filepath.Join(t.TempDir(), "sessions.json")}
	at := time.Date(2026, 11, 20, 14, 0, 0, 0, time.UTC)
	for _, ev := range []map[string]any{
		{"hook_event_name": "SessionStart", "source": "startup"},
		{"hook_event_name": "UserPromptSubmit", "prompt": "keep going"},
		{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "b1", "tool_input": map[string]any{"command": "go test ./..."}, "tool_response": map[string]any{"stdout": "ok"}},
		{"hook_event_name": "Stop", "stop_hook_active": false},
	} {
		ev["session_id"], ev["cwd"], ev["transcript_path"] = id, root, filepath.Join(root, "transcript.jsonl")
		raw, _ := json.Marshal(ev)
		at = at.Add(time.Second)
		now := at
		var stderr bytes.Buffer
		recorder.Run(context.Background(), recorder.Options{Stdin: bytes.NewReader(raw), Stdout: &bytes.Buffer{}, Stderr: &stderr,
			Getenv: func(k string) string { return env[k] }, Now: func() time.Time { return now }, Alive: func(int) bool { return false }})
		if stderr.Len() > 0 {
			t.Fatalf("recorder complained: %s", stderr.String())
		}
	}
	opt := export.Options{Now: fixedNow, Home: t.TempDir(), Generator: "spcstr test"}
	sum, err := export.Build(context.Background(), state.Layout{Root: root}, id, opt)
	if err != nil {
		t.Fatal(err)
	}
	var md, js bytes.Buffer
	if err := export.WriteMarkdown(&md, []*export.Summary{sum}); err != nil {
		t.Fatal(err)
	}
	if err := export.WriteJSON(&js, []*export.Summary{sum}, opt); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "golden", "observability.md"), stable(md.Bytes(), root))
	golden(t, filepath.Join("testdata", "golden", "observability.json"), stable(js.Bytes(), root))
	validate(t, js.Bytes())

	text := md.String()
	for _, want := range []string{"### Timeline", "### Errors", "### Custom Events", "- **Warnings**: 1",
		"Only warnings", "EMERGENCY", "`threshold_crossed` (strategy:token-budget): 1 time"} {
		if !strings.Contains(text, want) {
			t.Errorf("export lacks %q", want)
		}
	}
	if strings.Contains(text, "No gate or strategy decided anything") {
		t.Error("a session with a warning exports as one where nothing was decided")
	}
	if d := sum.Decisions; d.Warnings != 1 || d.Allows != 0 || d.Blocks+d.Denies+d.Errors != 0 {
		t.Errorf("decisions = %+v", d)
	}
	if o := sum.Observability; o.Source != "observability.jsonl" || o.Hooks != 4 || len(o.CustomEvents) != 1 || len(o.Errors) != 0 {
		t.Errorf("observability = %+v", o)
	}
}
