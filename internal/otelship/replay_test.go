package otelship_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/recorder"
	"github.com/dylan-gluck/spcstr/state"
)

// captures are harness captures: the real Claude Code CLI's hook payloads,
// shared with the export's tests.
const captures = "../export/testdata/captures"

type capture struct {
	TS         float64         `json:"ts"`
	Event      string          `json:"event"`
	ProjectDir string          `json:"CLAUDE_PROJECT_DIR"`
	Payload    json.RawMessage `json:"payload"`
}

// denyGate denies every PreToolUse of one tool, as a project's requirement
// would.
type denyGate struct{ tool string }

func (g denyGate) Name() string     { return "deny-" + g.tool }
func (g denyGate) FailClosed() bool { return false }
func (g denyGate) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if in.Name == hookio.PreToolUse && in.Event.ToolName == g.tool {
		return []gate.Verdict{{Decision: gate.Deny, Reason: g.tool + " is not allowed here", Message: "use something else"}}, nil
	}
	return nil, nil
}

// newProject makes an empty spcstr project.
func newProject(t testing.TB) state.Layout {
	t.Helper()
	root := filepath.Join(t.TempDir(), "project")
	if err := os.MkdirAll(filepath.Join(root, ".spcstr", "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	return state.Layout{Root: root}
}

// replay feeds a capture through the recorder into the project, each event
// at its captured time, and returns the session id. With deny set, that
// tool's calls are denied, and the capture's later events about a denied
// call are dropped (Claude Code would not have run the tool).
func replay(t testing.TB, l state.Layout, name string, deny string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(captures, name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{
		"CLAUDE_PROJECT_DIR": l.Root,
		"SPCSTR_REGISTRY":    filepath.Join(t.TempDir(), "sessions.json"),
	}
	gates := func(gate.Setup) []gate.Gate {
		if deny == "" {
			return nil
		}
		return []gate.Gate{denyGate{deny}}
	}
	// The captured transcripts are gone: every event points at a copy of
	// a real one, so that state.json has token counts.
	transcript := filepath.Join(t.TempDir(), "transcript.jsonl")
	data, err := os.ReadFile("../../bench/testdata/transcript.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(transcript, data, 0o644); err != nil {
		t.Fatal(err)
	}
	denied := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	sessionID := ""
	for sc.Scan() {
		var c capture
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		payload := []byte(strings.ReplaceAll(string(c.Payload), c.ProjectDir, l.Root))
		var p struct {
			SessionID      string `json:"session_id"`
			ToolUseID      string `json:"tool_use_id"`
			TranscriptPath string `json:"transcript_path"`
		}
		_ = json.Unmarshal(payload, &p)
		if p.TranscriptPath != "" {
			payload = bytes.ReplaceAll(payload, []byte(p.TranscriptPath), []byte(transcript))
		}
		if denied[p.ToolUseID] {
			continue
		}
		sessionID = p.SessionID
		sec, frac := math.Modf(c.TS)
		at := time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC()
		var stdout, stderr bytes.Buffer
		recorder.Run(context.Background(), recorder.Options{
			Stdin:  bytes.NewReader(payload),
			Stdout: &stdout,
			Stderr: &stderr,
			Getenv: func(k string) string { return env[k] },
			Now:    func() time.Time { return at },
			Gates:  gates,
			Alive:  func(int) bool { return false },
		})
		if stderr.Len() > 0 {
			t.Fatalf("%s: recorder complained about %s: %s", name, c.Event, stderr.String())
		}
		if p.ToolUseID != "" && strings.Contains(stdout.String(), `"deny"`) {
			denied[p.ToolUseID] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sessionID
}
