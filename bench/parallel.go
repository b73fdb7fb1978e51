//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// gateSeconds is how long the command gate of the parallel figure takes.
const gateSeconds = 3

// benchParallel is the figure of parallel tool calls: six PreToolUse hooks
// of one session at once (parallel tool calls and background agents share
// a session) against a healthy command gate that takes gateSeconds. The
// gates run outside the session's lock, so each answers in about the
// gate's own time; under the lock they answered at 3, 6, 9, 12 s. Goal:
// every answer within 1.3 × the gate's time, every one a deny from the
// gate (none allowed unchecked).
func benchParallel(hook, tmp string) error {
	root, err := newProject(filepath.Join(tmp, "parallel"))
	if err != nil {
		return err
	}
	cfg := fmt.Sprintf("strategies:\n  slow-gate:\n    command: 'sleep %d; echo checked >&2; exit 2'\n    hooks: [PreToolUse]\n    matcher: Bash\n    fail_mode: closed\n    timeout: 30\n", gateSeconds)
	if err := os.WriteFile(filepath.Join(root, ".spcstr", "config.yaml"), []byte(cfg), 0o644); err != nil {
		return err
	}
	env := append(os.Environ(), "CLAUDE_PROJECT_DIR="+root, "SPCSTR_REGISTRY="+filepath.Join(root, "registry.json"),
		"CLAUDE_PID="+strconv.Itoa(os.Getpid()))
	session := "bench-parallel-01"
	// The session exists before the parallel calls, as it would.
	start := map[string]any{"session_id": session, "hook_event_name": "SessionStart", "source": "startup", "cwd": root}
	if _, _, err := exe(hook, nil, start, env); err != nil {
		return err
	}
	const n = 6
	took := make([]time.Duration, n)
	answers := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, _ := json.Marshal(map[string]any{"session_id": session, "hook_event_name": "PreToolUse", "cwd": root,
				"tool_name": "Bash", "tool_use_id": fmt.Sprintf("toolu_par_%d", i), "tool_input": map[string]any{"command": "ls"}})
			t0 := time.Now()
			out, err := hookOutput(hook, p, env)
			took[i], answers[i], errs[i] = time.Since(t0), out, err
		}()
	}
	wg.Wait()
	var worst time.Duration
	denied := 0
	var list []string
	for i := range n {
		if errs[i] != nil {
			return fmt.Errorf("parallel hook %d: %w", i, errs[i])
		}
		worst = max(worst, took[i])
		if bytes.Contains(answers[i], []byte(`"permissionDecision":"deny"`)) && bytes.Contains(answers[i], []byte("checked")) {
			denied++
		}
		list = append(list, ms(took[i]))
	}
	gate := time.Duration(gateSeconds) * time.Second
	verdict(fmt.Sprintf("P-par %d parallel PreToolUse ÷ a %d s gate", n, gateSeconds), float64(worst)/float64(gate), 1.3,
		fmt.Sprintf("(answers in %s; %d of %d denied by the gate itself)", strings.Join(list, ", "), denied, n))
	if denied != n {
		fmt.Printf("%-52s MISSED  %d of %d calls were not answered by the gate\n", "P-par every call checked by the gate", n-denied, n)
	}
	return nil
}

// hookOutput runs the hook on payload p and returns what it printed.
func hookOutput(bin string, p []byte, env []string) ([]byte, error) {
	cmd := exec.Command(bin)
	cmd.Stdin = bytes.NewReader(p)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, stderr.String())
	}
	return stdout.Bytes(), nil
}
