package recorder

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/testshared"
)

// spcstrBin is the real spcstr binary, built once (static, CGO_ENABLED=0)
// for the tests that run hooks as separate processes.
var spcstrBin string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "spcstr-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "recorder tests:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	root, err := testshared.ModuleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "recorder tests: module root:", err)
		return 1
	}
	// Built to a temporary name, then renamed: a binary is never run
	// while it is being written ("text file busy").
	spcstrBin = filepath.Join(dir, "spcstr")
	cmd := exec.Command("go", "build", "-o", spcstrBin+".tmp", "./cmd/spcstr")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "recorder tests: building spcstr: %v\n%s", err, out.Bytes())
		return 1
	}
	if err := os.Rename(spcstrBin+".tmp", spcstrBin); err != nil {
		fmt.Fprintln(os.Stderr, "recorder tests:", err)
		return 1
	}
	return m.Run()
}

// hookResult is one run of `spcstr hook`.
type hookResult struct {
	code           int
	stdout, stderr string
}

// runBinary runs the real `spcstr hook [event]` with payload on stdin in
// project p's environment.
func runBinary(t testing.TB, p *project, payload []byte, event string) hookResult {
	t.Helper()
	cmd := binaryCmd(p, payload, event)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("run spcstr: %v", err)
		}
		code = ee.ExitCode()
	}
	return hookResult{code, out.String(), errOut.String()}
}

func binaryCmd(p *project, payload []byte, event string) *exec.Cmd {
	args := []string{"hook"}
	if event != "" {
		args = append(args, event)
	}
	cmd := exec.Command(spcstrBin, args...)
	cmd.Dir = p.root
	cmd.Stdin = bytes.NewReader(payload)
	env := []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range p.env {
		env = append(env, k+"="+v)
	}
	cmd.Env = env
	return cmd
}
