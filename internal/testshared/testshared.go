// Package testshared holds what tests of several packages need: the module
// root (to find test data and build commands) and a spcstr build. Everything
// a test reads is in the repository; the real-client harness is
// e2e/harness.
package testshared

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ModuleRoot returns the folder holding go.mod, searching up from the
// working directory (a package's folder under go test).
func ModuleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", os.ErrNotExist
		}
		d = parent
	}
}

// BuildSpcstr builds the spcstr binary (static, as released) into the
// test's temporary folder and returns its path.
func BuildSpcstr(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "spcstr")
	build := exec.Command("go", "build", "-o", bin, "github.com/dylan-gluck/spcstr/cmd/spcstr")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build spcstr: %v\n%s", err, out)
	}
	return bin
}
