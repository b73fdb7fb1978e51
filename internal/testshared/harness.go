package testshared

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Harness returns the installed Claude Code harness ($SPCSTR_HARNESS: a
// copy of the offline Claude Code harness ($SPCSTR_SHARED/harness) where `npm ci` has been run, as
// scripts/harness-setup.sh makes it). Under -short the test is skipped;
// otherwise a missing harness fails it with the setup instructions.
func Harness(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("real-client harness run skipped under -short")
	}
	dir := os.Getenv("SPCSTR_HARNESS")
	if dir == "" {
		t.Fatal("SPCSTR_HARNESS is not set: point it at an installed copy of the offline Claude Code harness ($SPCSTR_SHARED/harness) " +
			"(SPCSTR_HARNESS=$(scripts/harness-setup.sh)), or run with -short to skip real-client tests")
	}
	if _, err := os.Stat(filepath.Join(dir, "run-scenario.sh")); err != nil {
		t.Fatalf("SPCSTR_HARNESS=%s has no run-scenario.sh: %v", dir, err)
	}
	return dir
}

// BuildSpcstr builds the spcstr binary (static, as released) into a
// temporary folder and returns its path.
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
