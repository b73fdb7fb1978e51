package recorder

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/internal/testshared"
	"github.com/dylan-gluck/spcstr/logs"
)

// The fail modes through the real binary: on every path where a gate
// could not decide, a fail_mode closed gate denies or blocks, saying it
// could not decide, and a fail_mode open one lets the action through but
// tells the user and records gate-error.

// closedStop is a config whose clean-state strategy (fail_mode closed by
// default) blocks Stops it cannot decide.
const closedStop = "strategies:\n  clean-state: {}\n"

// commitPlan is a requirements.yaml whose commit_plan guards Edit.
const commitPlan = "requirements:\n  commit_plan:\n    enabled: true\n    scope: session\n    message: Plan first.\n"

// failProject is a project with config.yaml cfg and, when req is set, a
// .claude/requirements.yaml.
func failProject(t *testing.T, cfg, req string) *project {
	t.Helper()
	p := newProject(t)
	write := func(rel, data string) {
		t.Helper()
		path := filepath.Join(p.root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".spcstr/config.yaml", cfg)
	if req != "" {
		write(".claude/requirements.yaml", req)
	}
	return p
}

func stopPayload(p *project, id string) []byte {
	b, _ := json.Marshal(map[string]any{"hook_event_name": "Stop", "session_id": id, "cwd": p.root})
	return b
}

func toolPayload(p *project, id, tool string, input map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": id, "cwd": p.root,
		"tool_name": tool, "tool_use_id": "tu1", "tool_input": input})
	return b
}

// answerOf decodes a hook's stdout (the zero answer when empty).
func answerOf(t *testing.T, res hookResult) hookio.Answer {
	t.Helper()
	var a hookio.Answer
	if out := strings.TrimSpace(res.stdout); out != "" {
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("answer %q: %v", out, err)
		}
	}
	if res.code != 0 {
		t.Fatalf("hook exited %d: %s", res.code, res.stderr)
	}
	return a
}

// wantBlocked checks a Stop answer: blocked because gate could not decide.
func wantBlocked(t *testing.T, a hookio.Answer, gateName string) {
	t.Helper()
	if a.Decision != hookio.DecisionBlock || !strings.Contains(a.Reason, gateName+" could not decide") ||
		!strings.Contains(a.Reason, "fail_mode is closed") {
		t.Fatalf("Stop not blocked by %s: %+v", gateName, a)
	}
}

// wantDenied checks a PreToolUse answer: denied because gate could not decide.
func wantDenied(t *testing.T, a hookio.Answer, gateName string) {
	t.Helper()
	h := a.HookSpecificOutput
	if h == nil || h.PermissionDecision != hookio.PermissionDeny || !strings.Contains(h.PermissionDecisionReason, gateName+" could not decide") {
		t.Fatalf("call not denied by %s: %+v", gateName, a)
	}
}

func TestFailClosedSessionsAFile(t *testing.T) {
	p := failProject(t, closedStop, commitPlan)
	if err := os.WriteFile(filepath.Join(p.root, ".spcstr/sessions"), []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantBlocked(t, answerOf(t, runBinary(t, p, stopPayload(p, "fc1"), "")), "strategy:clean-state")
	// requirements: open by default, never silently.
	a := answerOf(t, runBinary(t, p, toolPayload(p, "fc1", "Edit", map[string]any{"file_path": "x.go"}), ""))
	if a.HookSpecificOutput != nil || !strings.Contains(a.SystemMessage, "requirements could not decide") ||
		!strings.Contains(a.SystemMessage, "fail_mode is open") {
		t.Fatalf("fail-open Edit: %+v", a)
	}
	recs := decisionRecords(t, p)
	last := recs[len(recs)-1]
	if last.Source != "requirements" || last.Reason != gate.ReasonGateError || last.Enforcement != gate.FailedOpen {
		t.Fatalf("fail-open record = %+v", last)
	}
	// And closed when config.yaml says so.
	p2 := failProject(t, "requirements:\n  fail_mode: closed\n", commitPlan)
	if err := os.WriteFile(filepath.Join(p2.root, ".spcstr/sessions"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantDenied(t, answerOf(t, runBinary(t, p2, toolPayload(p2, "fc1", "Edit", map[string]any{"file_path": "x.go"}), "")), "requirements")
	// A call no requirement guards is not denied.
	if a := answerOf(t, runBinary(t, p2, toolPayload(p2, "fc1", "Read", map[string]any{"file_path": "x.go"}), "")); a.HookSpecificOutput != nil {
		t.Fatalf("unguarded Read: %+v", a)
	}
}

func TestFailClosedSessionsSymlinkOut(t *testing.T) {
	p := failProject(t, closedStop, "")
	out := t.TempDir()
	if err := os.Symlink(out, filepath.Join(p.root, ".spcstr/sessions")); err != nil {
		t.Fatal(err)
	}
	wantBlocked(t, answerOf(t, runBinary(t, p, stopPayload(p, "fc2"), "")), "strategy:clean-state")
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Fatalf("the hook wrote through the symlink: %v", ents)
	}
}

func TestFailClosedLockHeld(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the 10 s lock timeout")
	}
	p := failProject(t, closedStop, "")
	// The session exists; another process holds its lock.
	answerOf(t, runBinary(t, p, []byte(`{"hook_event_name":"SessionStart","session_id":"fc3","cwd":"`+p.root+`"}`), ""))
	path, _ := p.layout().StatePath("fc3")
	unlock, err := jsonfile.Lock(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	wantBlocked(t, answerOf(t, runBinary(t, p, stopPayload(p, "fc3"), "")), "strategy:clean-state")
}

// mountOrSkip runs mount with args; without the privilege to mount (not
// root, no CAP_SYS_ADMIN) the test cannot build its file system.
func mountOrSkip(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("mount", args...).CombinedOutput(); err != nil {
		t.Skipf("cannot mount here (needs root): %v %s", err, out)
	}
}

func umount(t *testing.T, dir string) {
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
}

func TestFailClosedReadOnlySpcstr(t *testing.T) {
	p := failProject(t, closedStop, "")
	answerOf(t, runBinary(t, p, []byte(`{"hook_event_name":"SessionStart","session_id":"fc4","cwd":"`+p.root+`"}`), ""))
	dir := filepath.Join(p.root, ".spcstr")
	mountOrSkip(t, "--bind", dir, dir)
	umount(t, dir)
	if out, err := exec.Command("mount", "-o", "remount,ro,bind", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount read-only: %v %s", err, out)
	}
	wantBlocked(t, answerOf(t, runBinary(t, p, stopPayload(p, "fc4"), "")), "strategy:clean-state")
	// A session the read-only folder has no room for.
	wantBlocked(t, answerOf(t, runBinary(t, p, stopPayload(p, "fc5"), "")), "strategy:clean-state")
}

// A full disk: the requirements gate decides from what it reads, and the
// failed metrics write is reported without turning the deny into an allow.
func TestFullDiskKeepsTheVerdict(t *testing.T) {
	p := failProject(t, "", commitPlan)
	dir := filepath.Join(p.root, ".spcstr")
	mountOrSkip(t, "-t", "tmpfs", "-o", "size=256k", "tmpfs", dir)
	umount(t, dir)
	answerOf(t, runBinary(t, p, []byte(`{"hook_event_name":"SessionStart","session_id":"fc6","cwd":"`+p.root+`"}`), ""))
	// Fill what is left.
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !strings.Contains(err.Error(), syscall.ENOSPC.Error()) {
				t.Fatalf("filling the disk: %v", err)
			}
			break
		}
	}
	f.Close()
	res := runBinary(t, p, toolPayload(p, "fc6", "Edit", map[string]any{"file_path": "x.go"}), "")
	a := answerOf(t, res)
	if h := a.HookSpecificOutput; h == nil || h.PermissionDecision != hookio.PermissionDeny || !strings.Contains(h.PermissionDecisionReason, "Plan first.") {
		t.Fatalf("full disk: Edit not denied by the unmet requirement: %+v\n%s", a, res.stderr)
	}
	if !strings.Contains(res.stderr, "no space left") {
		t.Fatalf("the failed write is not reported: %s", res.stderr)
	}
}

// A Python-only command_pattern that cannot be matched (here: spcstr-hook,
// which asks spcstr to match such a pattern, alone in its folder with a
// PATH without spcstr) leaves requirements undecided: with fail_mode
// closed, the command is denied.
func TestFailClosedUnmatchablePattern(t *testing.T) {
	req := "requirements:\n  pre_commit:\n    enabled: true\n    scope: single_use\n    trigger_tools:\n      - tool: Bash\n        command_pattern: \"git\\\\s+commit(?!.*--amend)\"\n"
	buildLone.Do(func() {
		// A folder of its own inside the test binaries' folder (removed
		// with it), so that no spcstr stands beside it.
		dir := filepath.Join(filepath.Dir(spcstrBin), "alone")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			buildLoneErr = err
			return
		}
		loneHook = filepath.Join(dir, "spcstr-hook")
		root, err := testshared.ModuleRoot()
		if err != nil {
			buildLoneErr = err
			return
		}
		tmp := loneHook + ".tmp"
		cmd := exec.Command("go", "build", "-o", tmp, "./cmd/spcstr-hook")
		cmd.Dir, cmd.Env = root, append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildLoneErr = fmt.Errorf("%v: %s", err, out)
			return
		}
		buildLoneErr = os.Rename(tmp, loneHook) // never run while being written
	})
	if buildLoneErr != nil {
		t.Fatal(buildLoneErr)
	}
	run := func(p *project) hookResult {
		p.env["PATH"] = t.TempDir()
		cmd := binaryCmd(p, toolPayload(p, "fc7", "Bash", map[string]any{"command": "git commit -m x"}), "")
		cmd.Path, cmd.Args = loneHook, []string{loneHook}
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("hook: %v %s", err, errOut.String())
		}
		return hookResult{0, out.String(), errOut.String()}
	}
	p := failProject(t, "requirements:\n  fail_mode: closed\n", req)
	wantDenied(t, answerOf(t, run(p)), "requirements")
	// Open: allowed, with a message and a gate-error record.
	p = failProject(t, "", req)
	a := answerOf(t, run(p))
	if a.HookSpecificOutput != nil || !strings.Contains(a.SystemMessage, "requirements could not decide") {
		t.Fatalf("open: %+v", a)
	}
}

var (
	buildLone    sync.Once
	loneHook     string
	buildLoneErr error
)

// A Python-only command_pattern whose match times out (the backtracking
// engine's 100 ms) leaves requirements undecided: closed denies, open tells.
func TestFailClosedRegexTimeout(t *testing.T) {
	req := "requirements:\n  careful:\n    enabled: true\n    trigger_tools:\n      - tool: Bash\n        command_pattern: \"^(?!zzz)(a+)+$\"\n"
	slow := strings.Repeat("a", 40) + "b"
	p := failProject(t, "requirements:\n  fail_mode: closed\n", req)
	res := runBinary(t, p, toolPayload(p, "fc8", "Bash", map[string]any{"command": slow}), "")
	wantDenied(t, answerOf(t, res), "requirements")
	if !strings.Contains(res.stdout, "timeout") {
		t.Fatalf("the reason does not say the match timed out: %s", res.stdout)
	}
	p = failProject(t, "", req)
	a := answerOf(t, runBinary(t, p, toolPayload(p, "fc8", "Bash", map[string]any{"command": slow}), ""))
	if a.HookSpecificOutput != nil || !strings.Contains(a.SystemMessage, "requirements could not decide") {
		t.Fatalf("open: %+v", a)
	}
	if recs := decisionRecords(t, p); len(recs) != 1 || recs[0].Reason != gate.ReasonGateError || !strings.Contains(recs[0].Error, "timeout") {
		t.Fatalf("open records = %+v", recs)
	}
}

// A gate that crashes (a command strategy killed by a signal) through the
// real binary: closed blocks the Stop.
func TestFailClosedCrashingGate(t *testing.T) {
	p := failProject(t, "strategies:\n  crashes:\n    command: [sh, -c, 'kill -SEGV $$']\n    hooks: [Stop]\n    fail_mode: closed\n", "")
	wantBlocked(t, answerOf(t, runBinary(t, p, stopPayload(p, "fc9"), "")), "strategy:crashes")
}

// decisionRecords reads .spcstr/logs/decisions.json.
func decisionRecords(t *testing.T, p *project) []gate.Record {
	t.Helper()
	var out []gate.Record
	err := logs.ScanFile(filepath.Join(p.root, ".spcstr/logs/decisions.json"), func(raw []byte) error {
		var r gate.Record
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A config.yaml that does not parse: the gates it configures cannot run.
// When it asked for fail_mode closed anywhere, Stops are blocked and tool
// calls denied until it is fixed; otherwise the user is told each time.
func TestFailClosedUnparsableConfig(t *testing.T) {
	p := failProject(t, "strategies:\n  clean-state:\n    fail_mode: closed\n  oops: [\n", "")
	wantBlocked(t, answerOf(t, runBinary(t, p, stopPayload(p, "fc10"), "")), "config")
	wantDenied(t, answerOf(t, runBinary(t, p, toolPayload(p, "fc10", "Read", map[string]any{"file_path": "x"}), "")), "config")
	p = failProject(t, "strategies:\n  token-budget: {}\n  oops: [\n", "")
	a := answerOf(t, runBinary(t, p, stopPayload(p, "fc10"), ""))
	if a.Decision != "" || !strings.Contains(a.SystemMessage, "config could not decide") {
		t.Fatalf("open: %+v", a)
	}
	if recs := decisionRecords(t, p); len(recs) != 1 || recs[0].Source != gate.ConfigGateName || recs[0].Enforcement != gate.FailedOpen {
		t.Fatalf("records = %+v", recs)
	}
}

// One bad value never switches a closed gate off, through the real
// binary: a top-level type error beside a flow-style closed strategy
// (the strategy still runs, and fails closed on its own), a file that does
// not parse with a flow-style fail_mode: closed or clean-state (closed by
// default) in it.
func TestFailClosedBadValueVariants(t *testing.T) {
	p := failProject(t, "stop_block_limit: three\nstrategies: {mine: {command: 'exit 1', hooks: [Stop], fail_mode: closed}}\n", "")
	a := answerOf(t, runBinary(t, p, stopPayload(p, "fc11"), ""))
	wantBlocked(t, a, "strategy:mine")
	if !strings.Contains(a.SystemMessage, "stop_block_limit") {
		t.Errorf("the bad top-level value is not named: %+v", a)
	}
	p = failProject(t, "strategies: {mine: {command: x, hooks: [Stop], fail_mode: closed}}\noops: [\n", "")
	wantBlocked(t, answerOf(t, runBinary(t, p, stopPayload(p, "fc12"), "")), "config")
	p = failProject(t, "strategies:\n  clean-state:\n    require_files: [README.md\n", "")
	wantDenied(t, answerOf(t, runBinary(t, p, toolPayload(p, "fc13", "Read", map[string]any{"file_path": "x"}), "")), "config")
	p = failProject(t, "strategies:\n  clean-state:\n    require_files: README.md\n", "")
	wantBlocked(t, answerOf(t, runBinary(t, p, stopPayload(p, "fc14"), "")), "strategy:clean-state")
}
