package recorder

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/state"
)

// project is a temporary spcstr project that hook events are fed to
// in-process, with a fake clock (one second per event) and its own
// registry.
type project struct {
	t     testing.TB
	root  string
	reg   string
	env   map[string]string
	now   time.Time
	gates func(gate.Setup) []gate.Gate
}

func newProject(t testing.TB) *project {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, state.DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	p := &project{
		t:    t,
		root: root,
		reg:  filepath.Join(home, "registry", "sessions.json"),
		now:  t0,
		gates: func(gate.Setup) []gate.Gate {
			return nil
		},
	}
	p.env = map[string]string{
		"CLAUDE_PROJECT_DIR": root,
		"SPCSTR_REGISTRY":    p.reg,
		"HOME":               home,
	}
	return p
}

func (p *project) layout() state.Layout { return state.Layout{Root: p.root} }

// run feeds one payload to the recorder and returns what it printed.
func (p *project) run(payload []byte, event string) (stdout, stderr string) {
	p.t.Helper()
	var out, errOut bytes.Buffer
	p.now = p.now.Add(time.Second)
	now := p.now
	code := Run(context.Background(), Options{
		Stdin:  bytes.NewReader(payload),
		Stdout: &out,
		Stderr: &errOut,
		Event:  event,
		Getenv: func(k string) string { return p.env[k] },
		Now:    func() time.Time { return now },
		Gates:  p.gates,
		Alive:  func(int) bool { return true },
	})
	if code != 0 {
		p.t.Fatalf("exit code %d for %q", code, payload)
	}
	return out.String(), errOut.String()
}

func (p *project) runAll(payloads ...string) {
	p.t.Helper()
	for _, pl := range payloads {
		p.run([]byte(pl), "")
	}
}

func (p *project) state(id string) *state.Session {
	p.t.Helper()
	s, err := p.layout().Load(id)
	if err != nil {
		p.t.Fatalf("load state %s: %v", id, err)
	}
	return s
}

// logEntries returns the entries of one log, parsed strictly.
func logEntries(t testing.TB, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		t.Fatal(err)
	}
	var entries []map[string]any
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	return entries
}

func (p *project) log(snake string) []map[string]any {
	p.t.Helper()
	return logEntries(p.t, p.layout().LogPath(snake))
}

// tree lists every file and folder under dir (relative, sorted).
func tree(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// outside returns the entries of tree(dir) that are not under .spcstr/.
func outside(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == "./" || p == ".spcstr/" || strings.HasPrefix(p, ".spcstr/") {
			continue
		}
		out = append(out, p)
	}
	return out
}

// parseAllJSON checks that every *.json file under dir is valid JSON and
// valid UTF-8, and returns how many there are.
func parseAllJSON(t testing.TB, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".json") {
			return nil
		}
		n++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Errorf("%s does not parse: %v", path, err)
		}
		if !utf8.Valid(data) {
			t.Errorf("%s is not valid UTF-8", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
