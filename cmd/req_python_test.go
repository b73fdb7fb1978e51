package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestRequirementsStateWithPython runs `spcstr req satisfy` and a writer
// using the Python requirements framework's locking protocol (an exclusive
// flock on the sidecar <branch>.lock around each read-modify-write) on one
// branch state file at the same time: every session entry of both is kept.
// Before spcstr took the framework's lock, writers of each replaced the
// other's entries.
func TestRequirementsStateWithPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed for the state file protocol test")
	}
	const nGo, parallel = 40, 8
	bin := buildSpcstr(t)
	root := t.TempDir()
	home := t.TempDir()
	for rel, text := range map[string]string{
		".git/HEAD":                 "ref: refs/heads/main\n",
		".claude/requirements.yaml": "requirements:\n  plan:\n    enabled: true\n",
	} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	statePath := filepath.Join(root, ".git", "requirements", "main.json")
	if err := os.MkdirAll(filepath.Dir(statePath), 0o755); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("testdata/requirements_state_client.py")
	stop := filepath.Join(t.TempDir(), "stop")
	pyCmd := exec.Command(py, script, statePath, "plan", stop)
	var pyOut, pyErr bytes.Buffer
	pyCmd.Stdout, pyCmd.Stderr = &pyOut, &pyErr
	if err := pyCmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pyCmd.Process.Kill() }()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if data, _ := os.ReadFile(statePath); bytes.Contains(data, []byte("py000001")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("python writer did not start: %s", pyErr.String())
		}
	}
	env := append(os.Environ(), "HOME="+home, "CLAUDE_PROJECT_DIR="+root,
		"SPCSTR_REGISTRY="+filepath.Join(home, "sessions.json"), "CLAUDE_CODE_SESSION_ID=", "CLAUDE_SESSION_ID=")
	sem := make(chan struct{}, parallel)
	errs := make(chan string, nGo)
	for i := 0; i < nGo; i++ {
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem }()
			c := exec.Command(bin, "req", "satisfy", "plan", "--session", fmt.Sprintf("go%06d", i))
			c.Dir, c.Env = root, env
			if out, err := c.CombinedOutput(); err != nil {
				errs <- fmt.Sprintf("satisfy %d: %v %s", i, err, out)
			}
		}(i)
	}
	for i := 0; i < parallel; i++ {
		sem <- struct{}{}
	}
	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := pyCmd.Wait(); err != nil || pyErr.Len() > 0 {
		t.Fatalf("python writer: %v %s", err, pyErr.String())
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	var nPy int
	if _, err := fmt.Sscan(pyOut.String(), &nPy); err != nil {
		t.Fatalf("python writer output %q", pyOut.String())
	}
	data, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Requirements map[string]struct {
			Sessions map[string]json.RawMessage `json:"sessions"`
		} `json:"requirements"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("state file does not parse: %v", err)
	}
	sessions := st.Requirements["plan"].Sessions
	var lostGo, lostPy []int
	for i := 0; i < nGo; i++ {
		if _, ok := sessions[fmt.Sprintf("go%06d", i)]; !ok {
			lostGo = append(lostGo, i)
		}
	}
	for i := 0; i < nPy; i++ {
		if _, ok := sessions[fmt.Sprintf("py%06d", i)]; !ok {
			lostPy = append(lostPy, i)
		}
	}
	if len(lostGo) > 0 || len(lostPy) > 0 {
		t.Errorf("lost %d of %d spcstr entries %v and %d of %d Python entries %v", len(lostGo), nGo, lostGo, len(lostPy), nPy, lostPy)
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "requirements", "main.lock")); err != nil {
		t.Errorf("the framework's lock file: %v", err)
	}
}
