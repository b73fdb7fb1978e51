package export_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/export"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/recorder"
	"github.com/dylan-gluck/spcstr/state"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// capture is one line of a real-client capture (the real Claude Code CLI
// run against a mock API, recorded with the earlier harness and kept in
// testdata/captures: other packages' tests depend on these exact runs).
type capture struct {
	TS         float64         `json:"ts"`
	Event      string          `json:"event"`
	ProjectDir string          `json:"CLAUDE_PROJECT_DIR"`
	Payload    json.RawMessage `json:"payload"`
}

// replayGate answers as the scenario's own hook did when it was captured,
// so that decisions.json holds the decisions of the real run.
type replayGate struct {
	name string
	fn   func(in *gate.Input) []gate.Verdict
}

func (g replayGate) Name() string     { return g.name }
func (g replayGate) FailClosed() bool { return false }
func (g replayGate) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	return g.fn(in), nil
}

// scenarioGates mirrors the helper hooks those runs used.
var scenarioGates = map[string][]gate.Gate{
	"stop-block": {replayGate{name: "stop-block-hook", fn: func(in *gate.Input) []gate.Verdict {
		if in.Name != hookio.Stop {
			return nil
		}
		if in.Event.StopHookActive {
			return []gate.Verdict{{Decision: gate.Allow, Reason: "already blocked once (stop_hook_active)"}}
		}
		return []gate.Verdict{{Decision: gate.Block, Reason: "STOP_BLOCKED_ONCE: also add a CHANGELOG.md entry before stopping."}}
	}}},
	"permissions": {replayGate{name: "permissions-hook", fn: func(in *gate.Input) []gate.Verdict {
		if in.Name == hookio.PermissionRequest && in.Event.ToolName == "Write" {
			return []gate.Verdict{{Decision: gate.Allow, Reason: "Write is allowed in this project"}}
		}
		return nil
	}}},
}

// replay feeds a capture through the recorder, in process, into a fresh
// project, each event at its captured time. It returns the project root
// and the session id.
func replay(t testing.TB, name string) (string, string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "project")
	for _, d := range []string{".spcstr", ".git"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("testdata", "captures", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{
		"CLAUDE_PROJECT_DIR": root,
		"SPCSTR_REGISTRY":    filepath.Join(t.TempDir(), "sessions.json"),
	}
	gates := func(gate.Setup) []gate.Gate { return scenarioGates[name] }
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	sessionID := ""
	for sc.Scan() {
		var c capture
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		payload := []byte(strings.ReplaceAll(string(c.Payload), c.ProjectDir, root))
		var p struct {
			SessionID string `json:"session_id"`
		}
		_ = json.Unmarshal(payload, &p)
		sessionID = p.SessionID
		sec, frac := math.Modf(c.TS)
		at := time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC()
		var stderr bytes.Buffer
		recorder.Run(context.Background(), recorder.Options{
			Stdin:  bytes.NewReader(payload),
			Stdout: &bytes.Buffer{},
			Stderr: &stderr,
			Getenv: func(k string) string { return env[k] },
			Now:    func() time.Time { return at },
			Gates:  gates,
			Alive:  func(int) bool { return false },
		})
		if stderr.Len() > 0 {
			t.Fatalf("%s: recorder complained about %s: %s", name, c.Event, stderr.String())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return root, sessionID
}

var requestIDs = regexp.MustCompile(`"request_id": "[0-9a-f]{16}"`)

// stable replaces what differs between runs: the temp project folder and
// the random request ids.
func stable(out []byte, root string) []byte {
	out = bytes.ReplaceAll(out, []byte(root), []byte("$PROJECT"))
	return requestIDs.ReplaceAll(out, []byte(`"request_id": "<request-id>"`))
}

var fixedNow = func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }

func TestGoldenCaptures(t *testing.T) {
	for _, name := range []string{"basic", "agents", "stop-block", "permissions", "tasks", "slash-command"} {
		t.Run(name, func(t *testing.T) {
			root, id := replay(t, name)
			l := state.Layout{Root: root}
			opt := export.Options{Now: fixedNow, Home: t.TempDir()}
			sum, err := export.Build(context.Background(), l, id, opt)
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
			golden(t, filepath.Join("testdata", "golden", name+".md"), stable(md.Bytes(), root))
			golden(t, filepath.Join("testdata", "golden", name+".json"), stable(js.Bytes(), root))
			validate(t, js.Bytes())
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./export -run Golden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the export (go test ./export -update rewrites it):\n%s", path, diff(string(want), string(got)))
	}
}

// diff shows the first differing lines.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n- " + a + "\n+ " + b
		}
	}
	return "(same lines, different bytes)"
}
