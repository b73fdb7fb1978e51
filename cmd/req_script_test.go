package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestReqScripts runs the `spcstr req` scripts in testdata/req against a
// freshly built binary on PATH. Each script gets its own HOME and session
// registry, so nothing outside its work directory is read or written.
func TestReqScripts(t *testing.T) {
	bin := buildSpcstr(t)
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "req"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("SPCSTR_REGISTRY", filepath.Join(env.WorkDir, "registry.json"))
			return nil
		},
	})
}

// buildSpcstr builds cmd/spcstr and cmd/spcstr-hook side by side, as go
// install ./cmd/... does, into a temporary folder.
func buildSpcstr(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "spcstr")
	for _, pkg := range []string{"spcstr", "spcstr-hook"} {
		cmd := exec.Command(goTool, "build", "-o", filepath.Join(dir, pkg), "./"+pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build ./cmd/%s: %v\n%s", pkg, err, out)
		}
	}
	return bin
}
