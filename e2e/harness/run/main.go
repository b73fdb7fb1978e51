// Command run runs one scenario through the real-client harness, outside
// the tests (for instance to record the demo's sessions):
//
//	go run ./e2e/harness/run SCENARIO.json OUTDIR [HOOK_COMMAND]
//
// OUTDIR must be empty or missing; it receives captured.jsonl,
// hook_results.jsonl, requests.jsonl, claude.{stdout,stderr,rc}, project/
// and home/ (see package harness). HOOK_COMMAND runs for every hook after
// the capture ("" or none: the scenario's helper, or capture only). It
// exits 1 when the run does not meet the scenario's expect block.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/dylan-gluck/spcstr/e2e/harness"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 || len(args) > 3 {
		return fmt.Errorf("usage: go run ./e2e/harness/run SCENARIO.json OUTDIR [HOOK_COMMAND]")
	}
	hook := ""
	if len(args) == 3 {
		hook = args[2]
	}
	tmp, err := os.MkdirTemp("", "spcstr-harness-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	env, err := harness.Open(tmp)
	if err != nil {
		return err
	}
	res, err := env.Run(context.Background(), harness.Options{Scenario: args[0], HookCommand: hook, OutDir: args[1]})
	if err != nil {
		return err
	}
	recs, _ := harness.ReadCaptured(res.OutDir)
	fmt.Fprintf(os.Stderr, "claude exit code %d after %s; %d hook payloads in %s/captured.jsonl\n",
		res.ExitCode, res.Elapsed.Round(100_000_000), len(recs), res.OutDir)
	if fails := harness.Check(args[0], res); len(fails) > 0 {
		for _, f := range fails {
			fmt.Fprintln(os.Stderr, "FAIL", f)
		}
		return fmt.Errorf("the run does not meet the scenario's expect block")
	}
	return nil
}
