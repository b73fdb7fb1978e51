package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain makes this test binary double as the spcstr command, so the
// scripts under testdata/script run "spcstr ..." as a user types it.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"spcstr": func() { os.Exit(Execute()) },
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script. Each runs
// in its own sandbox: $HOME is $WORK/home, the session registry is
// $WORK/registry.json, and $SPCSTR_BIN is the spcstr binary on PATH (for
// scripts that copy it somewhere else).
func TestScripts(t *testing.T) {
	bin, err := exec.LookPath("spcstr")
	if err != nil {
		t.Fatalf("testscript did not put spcstr on PATH: %v", err)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("SPCSTR_REGISTRY", filepath.Join(env.WorkDir, "registry.json"))
			env.Setenv("SPCSTR_BIN", bin)
			// git must not read the machine's or the user's config.
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(env.WorkDir, "gitconfig"))
			return os.MkdirAll(home, 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"expandenv":  expandEnv,
			"installbin": installBin,
		},
	})
}

// installBin puts a copy of the executable SRC at DST for a script to run.
// testscript's cp writes DST in this process while other scripts, in
// parallel, fork: a child inherits the open file until its own exec, and
// running DST meanwhile fails with "text file busy" (ETXTBSY, about 1 run
// in 5). A hard link writes nothing; where one cannot be made (another
// file system), cp writes the copy in a process of its own, which has
// exited, with the file closed, before anything runs it.
func installBin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: installbin SRC DST")
	}
	src, dst := ts.MkAbs(args[0]), ts.MkAbs(args[1])
	if err := os.Link(src, dst); err == nil {
		return
	}
	if out, err := exec.Command("cp", src, dst).CombinedOutput(); err != nil {
		ts.Fatalf("cp %s %s: %v: %s", src, dst, err, out)
	}
}

// expandEnv rewrites each FILE with its $VARIABLES replaced by the
// script's values (payloads that must hold real paths, such as $WORK).
func expandEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: expandenv FILE...")
	}
	for _, name := range args {
		data := os.Expand(ts.ReadFile(name), ts.Getenv)
		ts.Check(os.WriteFile(ts.MkAbs(name), []byte(data), 0o644))
	}
}
