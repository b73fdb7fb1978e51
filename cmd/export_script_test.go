package cmd_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// exportBinary builds spcstr for the export scripts into the test's
// temporary folder (removed when the test ends) and returns that folder.
// (The scripts run the real binary from PATH rather than through
// testscript.Main.)
func exportBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	name := "spcstr"
	if os.PathSeparator == '\\' {
		name += ".exe"
	}
	out, err := exec.Command("go", "build", "-o", filepath.Join(dir, name), "github.com/dylan-gluck/spcstr/cmd/spcstr").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

// TestExportScript runs cmd/testdata/export/*.txtar against the built
// binary. Extra commands: `jsonget FILE PATH` prints the value at a dotted
// path (".sessions.0.session_id") of a JSON file, failing when the file is
// not JSON or the path is missing.
func TestExportScript(t *testing.T) {
	bin := exportBinary(t)
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "export"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("SPCSTR_REGISTRY", filepath.Join(env.WorkDir, "registry.json"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("CLAUDE_PROJECT_DIR", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jsonget": jsonget,
		},
	})
}

func jsonget(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: jsonget FILE PATH")
	}
	var v any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &v); err != nil {
		if neg {
			return
		}
		ts.Fatalf("%s is not JSON: %v", args[0], err)
	}
	for _, key := range strings.Split(strings.TrimPrefix(args[1], "."), ".") {
		if key == "" {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			val, ok := x[key]
			if !ok {
				if neg {
					return
				}
				ts.Fatalf("%s: no %q in %s", args[0], key, args[1])
			}
			v = val
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(x) {
				if neg {
					return
				}
				ts.Fatalf("%s: no index %q in %s", args[0], key, args[1])
			}
			v = x[i]
		default:
			ts.Fatalf("%s: %s goes below a scalar", args[0], args[1])
		}
	}
	if neg {
		ts.Fatalf("%s: %s exists", args[0], args[1])
	}
	out, _ := json.Marshal(v)
	if s, ok := v.(string); ok {
		out = []byte(s)
	}
	fmt.Fprintf(ts.Stdout(), "%s\n", out)
}
