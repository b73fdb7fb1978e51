package e2e

import (
	"flag"
	"testing"

	"github.com/dylan-gluck/spcstr/e2e/harness"
)

var record = flag.Bool("record", false,
	"copy each scenario's captured.jsonl to recorder/testdata/captures (the recorder's golden inputs) and its transcript to internal/transcript/testdata")

var (
	// env is the installed harness (the Claude Code CLI and the wrapper).
	env *harness.Env
	// spcstrBin is spcstr built once for all scenarios.
	spcstrBin string
)

// requireHarness skips (or, under scripts/test, fails) when the CLI is not
// installed, and builds spcstr and the wrapper for this test.
func requireHarness(t *testing.T) {
	t.Helper()
	env = harness.Require(t)
	spcstrBin = harness.Build(t, "github.com/dylan-gluck/spcstr/cmd/spcstr", "spcstr")
}
