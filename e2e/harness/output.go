package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadJSONL reads one of a run's JSON Lines files (captured.jsonl,
// hook_results.jsonl, requests.jsonl) into values of T, skipping blank
// lines. An error names the file and line.
func ReadJSONL[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", filepath.Base(path), n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return out, nil
}

// HookResult is one line of hook_results.jsonl: what the hook command did
// for one invocation.
type HookResult struct {
	Event    string `json:"event"`
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
}

// HookRun is one hook invocation: the payload Claude Code sent and what the
// hook command answered.
type HookRun struct {
	Event   string
	Payload map[string]any
	HookResult
	// Answer is the hook's stdout as a JSON object (nil when it printed
	// nothing).
	Answer map[string]any
}

// HookRuns pairs a run's captured payloads with the hook command's results
// (the capture wrapper writes both in invocation order). A count mismatch,
// a payload that is not a JSON object or an answer that is not JSON is an
// error.
func HookRuns(outDir string) ([]HookRun, error) {
	captured, err := ReadJSONL[Record](filepath.Join(outDir, "captured.jsonl"))
	if err != nil {
		return nil, err
	}
	results, err := ReadJSONL[HookResult](filepath.Join(outDir, "hook_results.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(captured) != len(results) {
		return nil, fmt.Errorf("%d payloads but %d hook results", len(captured), len(results))
	}
	runs := make([]HookRun, 0, len(captured))
	for i, c := range captured {
		r := HookRun{Event: c.Event, HookResult: results[i]}
		if err := json.Unmarshal(c.Payload, &r.Payload); err != nil {
			return nil, fmt.Errorf("captured payload %d (%s): %w", i, c.Event, err)
		}
		if s := strings.TrimSpace(r.Stdout); s != "" {
			if err := json.Unmarshal([]byte(s), &r.Answer); err != nil {
				return nil, fmt.Errorf("%s answer %q: %w", r.Event, s, err)
			}
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// RunSpcstr runs the scenario file with bin (a spcstr build) as the hook
// for every event, its session registry in the test's temporary folder. A
// run that fails to start ends the test; a run that does not meet the
// scenario's expect block is reported as a test error. It returns the
// run's output folder.
func (env *Env) RunSpcstr(t testing.TB, bin, scenario string) string {
	t.Helper()
	scenario, err := filepath.Abs(scenario)
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "run")
	hook := "SPCSTR_REGISTRY=" + ShellQuote(filepath.Join(tmp, "registry.json")) + " " + ShellQuote(bin) + " hook"
	res, err := env.Run(t.Context(), Options{Scenario: scenario, HookCommand: hook, OutDir: out})
	if err != nil {
		t.Fatalf("harness run: %v", err)
	}
	if fails := Check(scenario, res); len(fails) > 0 {
		t.Errorf("the run does not meet the scenario's expect block:\n%s", strings.Join(fails, "\n"))
	}
	return out
}
