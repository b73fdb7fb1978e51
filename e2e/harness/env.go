package harness

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Env is an installed harness: the Claude Code binary and the wrapper.
type Env struct {
	// Claude is the Claude Code CLI binary.
	Claude string
	// Hookwrap is the capture wrapper, built for this test.
	Hookwrap string
}

// HowToRun says how to run the real-client tests; skip messages end with it.
const HowToRun = `To run them: scripts/test (installs everything and runs every check), or
    scripts/install-claude                 # npm ci of the pinned Claude Code into ~/.cache/spcstr-tools
    go test ./e2e/ ./internal/requirements/ ./internal/feedback/
SPCSTR_CLAUDE=<path of a claude binary> uses that binary instead.`

// requireEnv set to 1 (scripts/test sets it) turns a missing CLI into a
// failure instead of a skip.
const requireEnv = "SPCSTR_E2E_REQUIRE"

// Require returns the installed harness for a real-client test. Under
// -short it skips the test; when the CLI is not installed it skips with
// HowToRun, or fails when SPCSTR_E2E_REQUIRE=1. It builds the wrapper into
// the test's temporary folder.
func Require(t testing.TB) *Env {
	t.Helper()
	if testing.Short() {
		t.Skip("real-client test: skipped under -short.\n" + HowToRun)
	}
	claude, err := FindClaude()
	if err != nil {
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("real-client test: %v\n%s", err, HowToRun)
		}
		t.Skipf("real-client test skipped: %v\n%s", err, HowToRun)
	}
	for _, tool := range []string{"git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("real-client test: %s is required: %v", tool, err)
		}
	}
	return &Env{Claude: claude, Hookwrap: Build(t, "github.com/dylan-gluck/spcstr/e2e/harness/hookwrap", "hookwrap")}
}

// Open returns the installed harness outside a test, building the wrapper
// into dir.
func Open(dir string) (*Env, error) {
	claude, err := FindClaude()
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, HowToRun)
	}
	bin := filepath.Join(dir, "hookwrap")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/dylan-gluck/spcstr/e2e/harness/hookwrap")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build hookwrap: %w\n%s", err, out)
	}
	return &Env{Claude: claude, Hookwrap: bin}, nil
}

// Build builds a command of this module into the test's temporary folder
// (CGO_ENABLED=0, as spcstr is released) and returns the binary's path.
func Build(t testing.TB, pkg, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// FindClaude returns the Claude Code binary: $SPCSTR_CLAUDE, or the one
// scripts/install-claude installed for the version pinned in
// e2e/package.json.
func FindClaude() (string, error) {
	if p := os.Getenv("SPCSTR_CLAUDE"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("SPCSTR_CLAUDE: %w", err)
		}
		return p, nil
	}
	version, err := PinnedVersion()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(ToolsDir(), "claude-"+version)
	if _, err := os.Stat(filepath.Join(dir, ".installed")); err != nil {
		return "", fmt.Errorf("the Claude Code CLI %s is not installed (no %s)", version, dir)
	}
	candidates := []string{filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe")}
	more, _ := filepath.Glob(filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code-*", "claude"))
	for _, c := range append(candidates, more...) {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 && fi.Size() > 1<<20 {
			return c, nil
		}
	}
	return "", fmt.Errorf("no claude binary under %s (run scripts/install-claude again)", dir)
}

// ToolsDir is where scripts/install-claude (and scripts/release-check)
// keep their tools: $SPCSTR_TOOLS, else <user cache dir>/spcstr-tools.
func ToolsDir() string {
	if d := os.Getenv("SPCSTR_TOOLS"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "spcstr-tools")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "spcstr-tools")
}

var pinned = regexp.MustCompile(`"@anthropic-ai/claude-code":\s*"([^"]+)"`)

// PinnedVersion is the Claude Code version in e2e/package.json.
func PinnedVersion() (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(root, "e2e", "package.json"))
	if err != nil {
		return "", err
	}
	m := pinned.FindSubmatch(data)
	if m == nil {
		return "", errors.New("e2e/package.json pins no @anthropic-ai/claude-code version")
	}
	return string(m[1]), nil
}

// ModuleRoot is the folder holding go.mod, found from the working
// directory (a package's folder under go test).
func ModuleRoot() (string, error) {
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
