package recorder

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// capture is one line of a real-client capture (testdata/captures, recorded
// by the e2e harness: go test ./e2e -run TestScenarios -args -record): what
// real Claude Code sent to a hook.
type capture struct {
	Event      string          `json:"event"`
	Cwd        string          `json:"cwd"`
	ProjectDir string          `json:"CLAUDE_PROJECT_DIR"`
	Env        map[string]any  `json:"env"`
	Payload    json.RawMessage `json:"payload"`
}

func readCaptures(t *testing.T, path string) []capture {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []capture
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var c capture
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// logSummary is what a golden file keeps of one log: counts, not the
// entries themselves (they hold durations and whole payloads).
type logSummary struct {
	Entries   int            `json:"entries"`
	Events    map[string]int `json:"events,omitempty"`
	Tools     map[string]int `json:"tools,omitempty"`
	Truncated int            `json:"truncated,omitempty"`
	Answers   int            `json:"answers,omitempty"`
	Errors    int            `json:"errors,omitempty"`
}

type golden struct {
	Capture  string                    `json:"capture"`
	Payloads int                       `json:"payloads"`
	Answers  []string                  `json:"answers"`
	Files    []string                  `json:"files"`
	Logs     map[string]logSummary     `json:"logs"`
	States   map[string]*state.Session `json:"states"`
}

// TestGoldenCaptures replays each real Claude Code capture through the
// recorder and compares the resulting state and logs with
// testdata/golden/<capture>.json (go test -run TestGoldenCaptures -update
// rewrites them; review the diff by eye).
func TestGoldenCaptures(t *testing.T) {
	dir := filepath.Join("testdata", "captures")
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(paths) == 0 {
		t.Fatalf("no captures in %s", dir)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			caps := readCaptures(t, path)
			got := replay(t, name, caps)
			goldenPath := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(goldenPath), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(goldenPath, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the recorder's output (-update rewrites it):\n%s", goldenPath, firstDiff(want, got))
			}
		})
	}
}

// feed plays the captured payloads, in order, into a fresh project that
// stands where the capture's project was, calling answer with each
// output. It returns the project and the temporary folder standing for
// the capture's.
func feed(t *testing.T, caps []capture, answer func(out string)) (*project, string) {
	t.Helper()
	p := newProject(t)
	// The capture ran in <output folder>/project: point every path under
	// the output folder at the temporary folder instead.
	base := filepath.Dir(caps[0].ProjectDir)
	tmp := filepath.Dir(p.root)
	project := filepath.Join(tmp, "project")
	if err := os.MkdirAll(filepath.Join(project, state.DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	p.root = project
	p.env["CLAUDE_PROJECT_DIR"] = project
	if pid, ok := caps[0].Env["CLAUDE_PID"].(string); ok {
		p.env["CLAUDE_PID"] = pid
	}
	for _, c := range caps {
		payload := bytes.ReplaceAll(c.Payload, []byte(base), []byte(tmp))
		out, _ := p.run(payload, "")
		answer(out)
	}
	return p, tmp
}

// replay feeds the captured payloads, in order, to a fresh project that
// stands where the capture's project was, and returns the golden document.
func replay(t *testing.T, name string, caps []capture) []byte {
	t.Helper()
	g := golden{Capture: name, Answers: []string{}, Logs: map[string]logSummary{}, States: map[string]*state.Session{}}
	p, tmp := feed(t, caps, func(out string) {
		g.Payloads++
		if out != "" {
			g.Answers = append(g.Answers, strings.TrimSpace(out))
		}
	})
	for _, f := range tree(t, p.layout().Dir()) {
		if base := filepath.Base(f); strings.HasPrefix(base, ".") && strings.HasSuffix(base, ".lock") {
			continue // lock files: one beside each file, not interesting
		}
		g.Files = append(g.Files, f)
	}
	ids, err := p.layout().SessionIDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		st := p.state(id)
		// The sums of the file's sections cover bytes that hold the
		// temporary folder's name: they change from run to run.
		st.SectionSums = nil
		// The Claude Code process is the test's parent here: recorded,
		// but different from run to run.
		if st.ClaudePID <= 0 {
			t.Errorf("session %s: no Claude Code process recorded", id)
		}
		st.ClaudePID = 0
		g.States[id] = st
	}
	logPaths, _ := filepath.Glob(filepath.Join(p.layout().LogsDir(), "*.json"))
	for _, lp := range logPaths {
		sum := logSummary{Events: map[string]int{}, Tools: map[string]int{}}
		err := logs.ScanFile(lp, func(raw []byte) error {
			var e struct {
				Event string `json:"event"`
				Hook  string `json:"hook"`
				Input struct {
					ToolName string `json:"tool_name"`
				} `json:"input"`
				Truncated map[string]int `json:"truncated"`
				Outcome   *struct {
					Answer json.RawMessage `json:"answer"`
					Error  string          `json:"error"`
				} `json:"outcome"`
			}
			if err := json.Unmarshal(raw, &e); err != nil {
				return err
			}
			sum.Entries++
			if ev := e.Event + e.Hook; ev != "" {
				sum.Events[ev]++
			}
			if e.Input.ToolName != "" {
				sum.Tools[e.Input.ToolName]++
			}
			if len(e.Truncated) > 0 {
				sum.Truncated++
			}
			if e.Outcome != nil && len(e.Outcome.Answer) > 0 {
				sum.Answers++
			}
			if e.Outcome != nil && e.Outcome.Error != "" {
				sum.Errors++
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", lp, err)
		}
		g.Logs[filepath.Base(lp)] = sum
	}
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// Normalize the temporary folder.
	data = bytes.ReplaceAll(data, []byte(tmp), []byte("$TMP"))
	return append(data, '\n')
}

func firstDiff(want, got []byte) string {
	wl := strings.Split(string(want), "\n")
	gl := strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			lo := i - 3
			if lo < 0 {
				lo = 0
			}
			var b strings.Builder
			for j := lo; j < i; j++ {
				if j < len(gl) {
					b.WriteString("  " + gl[j] + "\n")
				}
			}
			b.WriteString("- " + w + "\n+ " + g + "\n")
			return b.String()
		}
	}
	return ""
}
