package e2e

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// setupHelp says how to make the harness available.
const setupHelp = `The e2e tests run the real Claude Code CLI through the offline harness.
Set SPCSTR_HARNESS to a copy of the offline Claude Code harness ($SPCSTR_SHARED/harness) in which "npm ci" has been run:
    export SPCSTR_HARNESS="$(scripts/harness-setup.sh)"   # copies the harness, runs npm ci, prints the path
    go test ./e2e/
(an already installed copy works too, e.g. SPCSTR_HARNESS=/work/harness).
"go test -short" skips these tests.`

var (
	// harnessDir is the installed harness (SPCSTR_HARNESS).
	harnessDir string
	// spcstrBin is spcstr built once for all scenarios.
	spcstrBin string
	// unavailable says why the e2e tests cannot run (nil when they can).
	unavailable error
)

func TestMain(m *testing.M) {
	flag.Parse()
	var tmp string
	if !testing.Short() {
		tmp, unavailable = prepare()
	}
	code := m.Run()
	if tmp != "" {
		os.RemoveAll(tmp)
	}
	os.Exit(code)
}

// prepare checks the harness and builds spcstr (CGO_ENABLED=0, as shipped)
// into a temporary folder, which it returns.
func prepare() (string, error) {
	h := os.Getenv("SPCSTR_HARNESS")
	if h == "" {
		return "", errors.New("SPCSTR_HARNESS is not set")
	}
	h, err := filepath.Abs(h)
	if err != nil {
		return "", fmt.Errorf("SPCSTR_HARNESS: %w", err)
	}
	if _, err := os.Stat(filepath.Join(h, "run-scenario.sh")); err != nil {
		return "", fmt.Errorf("SPCSTR_HARNESS=%s has no run-scenario.sh: %w", h, err)
	}
	if !claudeInstalled(h) {
		return "", fmt.Errorf("SPCSTR_HARNESS=%s has no installed Claude Code (node_modules missing: run npm ci there)", h)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		return "", fmt.Errorf("the harness needs python3: %w", err)
	}
	harnessDir = h

	tmp, err := os.MkdirTemp("", "spcstr-e2e-bin-")
	if err != nil {
		return "", err
	}
	root, err := moduleRoot()
	if err != nil {
		return tmp, err
	}
	bin := filepath.Join(tmp, "spcstr")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/spcstr")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return tmp, fmt.Errorf("building spcstr: %v\n%s", err, out)
	}
	spcstrBin = bin
	return tmp, nil
}

func claudeInstalled(h string) bool {
	if _, err := os.Stat(filepath.Join(h, "node_modules", ".bin", "claude")); err == nil {
		return true
	}
	m, _ := filepath.Glob(filepath.Join(h, "node_modules", "@anthropic-ai", "claude-code-linux-*", "claude"))
	return len(m) > 0
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the spcstr module")
	}
	return filepath.Dir(mod), nil
}

// requireHarness skips under -short and fails, saying how to set the
// harness up, when it is missing.
func requireHarness(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: skipped under -short (the real-client scenarios take about a minute).\n" + setupHelp)
	}
	if unavailable != nil {
		t.Fatalf("e2e: %v\n%s", unavailable, setupHelp)
	}
}
