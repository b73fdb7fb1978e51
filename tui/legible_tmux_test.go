package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/requirements"
)

// TestTmuxSearchAndConfirm runs the real dashboard: "/" finds a session by
// a file it read (no title holds it), and s in the Reqs pane asks
// "Satisfy commit_plan for this session? y/n" before y satisfies it,
// recorded as satisfied_by dashboard.
func TestTmuxSearchAndConfirm(t *testing.T) {
	root := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(filepath.Join(root, ".spcstr"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "requirements:\n  commit_plan:\n    enabled: true\n    scope: session\n    trigger_tools: [Edit, Write]\n    message: Plan the change first\n"
	if err := os.WriteFile(filepath.Join(root, ".claude", "requirements.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startTUIAt(t, root, 120, 30)
	id := "5ea5c4ed-0000-4000-8000-000000000001"
	p.hook(payload(id, "SessionStart", `,"source":"startup"`))
	p.hook(payload(id, "UserPromptSubmit", `,"prompt":"tidy the parser"`))
	read := `,"tool_name":"Read","tool_use_id":"r1","tool_input":{"file_path":"` + filepath.Join(root, "CHANGELOG.md") + `"}`
	p.hook(payload(id, "PreToolUse", read))
	p.waitFor("tidy the parser", 10*time.Second)

	// The search: the session is found by the file it read.
	p.run("send-keys", "-t", p.session, "/", "CHANGELOG")
	p.waitFor("↳ file_path: CHANGELOG.md", 10*time.Second)
	p.run("send-keys", "-t", p.session, "Enter")

	// The confirmation: s asks, n leaves it, s y applies it.
	p.run("send-keys", "-t", p.session, "4")
	p.waitFor("commit_plan", 10*time.Second)
	p.run("send-keys", "-t", p.session, "s")
	p.waitFor("Satisfy commit_plan for this session? y/n", 10*time.Second)
	p.run("send-keys", "-t", p.session, "n")
	p.waitFor("not changed: commit_plan", 10*time.Second)
	p.run("send-keys", "-t", p.session, "s")
	p.waitFor("Satisfy commit_plan for this session? y/n", 10*time.Second)
	p.run("send-keys", "-t", p.session, "y")
	p.waitFor("satisfied for this session: commit_plan", 10*time.Second)
	file, err := requirements.Locate(root).Load()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(file.Requirements["commit_plan"])
	if !strings.Contains(string(b), `"satisfied_by":"dashboard"`) {
		t.Errorf("the requirement state does not say satisfied_by dashboard: %s", b)
	}
}
