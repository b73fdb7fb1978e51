package recorder

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/logs"
)

func readPayload(p *project, id, tool, toolUseID, path string, respBytes int) []byte {
	resp := fmt.Sprintf(`{"type":"text","file":{"filePath":%q,"content":%q}}`, path, strings.Repeat("r", respBytes))
	return []byte(fmt.Sprintf(`{"hook_event_name":"PostToolUse","session_id":%q,"cwd":%q,"tool_name":%q,"tool_use_id":%q,"tool_input":{"file_path":%q},"tool_response":%s}`,
		id, p.root, tool, toolUseID, path, resp))
}

// loggedToolUseIDs returns the tool_use_id of every entry of a log.
func loggedToolUseIDs(t testing.TB, path string) map[string]int {
	t.Helper()
	ids := map[string]int{}
	for _, e := range logEntries(t, path) {
		in, _ := e["input"].(map[string]any)
		if id, ok := in["tool_use_id"].(string); ok {
			ids[id]++
		}
	}
	return ids
}

// TestParallelHooks runs 64 hook processes of one session at once (Claude
// Code runs the hooks of parallel tool calls concurrently), several
// times: no update is lost and no file is corrupt.
func TestParallelHooks(t *testing.T) {
	const procs = 64
	trials := 3
	if testing.Short() {
		trials = 1
	}
	for trial := 0; trial < trials; trial++ {
		t.Run(fmt.Sprintf("trial %d", trial), func(t *testing.T) {
			p := newProject(t)
			id := fmt.Sprintf("par-%d", trial)
			cmds := make([]*exec.Cmd, procs)
			outs := make([]bytes.Buffer, procs)
			for i := range cmds {
				path := filepath.Join(p.root, "src", fmt.Sprintf("f%02d.go", i))
				cmds[i] = binaryCmd(p, readPayload(p, id, "Read", fmt.Sprintf("tu-%02d", i), path, 2000), "")
				cmds[i].Stderr = &outs[i]
			}
			var wg sync.WaitGroup
			startGate := make(chan struct{})
			errs := make([]error, procs)
			for i, c := range cmds {
				wg.Add(1)
				go func(i int, c *exec.Cmd) {
					defer wg.Done()
					<-startGate
					errs[i] = c.Run()
				}(i, c)
			}
			close(startGate)
			wg.Wait()
			for i, err := range errs {
				if err != nil || outs[i].Len() > 0 {
					t.Errorf("hook %d: %v: %s", i, err, outs[i].String())
				}
			}
			s := p.state(id)
			if s.ToolsUsed["Read"] != procs || len(s.Files.Read) != procs || s.EventCounts["PostToolUse"] != procs {
				t.Errorf("lost updates: tools %v, %d files, %d events", s.ToolsUsed, len(s.Files.Read), s.EventCounts["PostToolUse"])
			}
			seen := map[string]bool{}
			for _, f := range s.Files.Read {
				if seen[f] || !strings.HasPrefix(f, "src/f") {
					t.Errorf("file %q duplicated or not relative", f)
				}
				seen[f] = true
			}
			ids := loggedToolUseIDs(t, p.layout().LogPath("post_tool_use"))
			if len(ids) != procs {
				t.Errorf("%d distinct log entries, want %d", len(ids), procs)
			}
			for id, n := range ids {
				if n != 1 {
					t.Errorf("%s logged %d times", id, n)
				}
			}
			checkProject(t, p)
		})
	}
}

// TestHostileInput sends what no hook should receive through the real
// binary: every invocation exits 0, nothing is written outside .spcstr,
// bad payloads land in rejected.json, and the valid events around them are
// still recorded.
func TestHostileInput(t *testing.T) {
	p := newProject(t)
	base := filepath.Dir(p.root)
	absEscape := filepath.Join(base, "abs-escape")
	const good = "good-session-1"
	garbage := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range garbage {
		garbage[i] = byte(rng.UintN(256))
	}
	hugePrompt := strings.Repeat("Z", 10<<20)
	type hostile struct {
		name     string
		payload  []byte
		event    string
		rejected bool
	}
	cases := []hostile{
		{"traversal id", []byte(`{"hook_event_name":"Stop","session_id":"../../escape"}`), "", true},
		{"traversal id 2", []byte(`{"hook_event_name":"UserPromptSubmit","session_id":"../escape","prompt":"x"}`), "", true},
		{"dot-dot id", []byte(`{"hook_event_name":"Stop","session_id":".."}`), "", true},
		{"absolute id", []byte(fmt.Sprintf(`{"hook_event_name":"SessionStart","session_id":%q}`, absEscape)), "", true},
		{"NUL id (escaped)", []byte(`{"hook_event_name":"Stop","session_id":"ab\u0000cd"}`), "", true},
		{"NUL id (raw byte)", []byte("{\"hook_event_name\":\"Stop\",\"session_id\":\"ab\x00cd\"}"), "", true},
		{"300-character id", []byte(`{"hook_event_name":"Stop","session_id":"` + strings.Repeat("x", 300) + `"}`), "", true},
		{"malformed JSON", []byte(`{"hook_event_name":"Stop","session_id":"` + good), "", true},
		{"empty stdin", nil, "", true},
		{"JSON array", []byte(`[{"hook_event_name":"Stop","session_id":"` + good + `"}]`), "", true},
		{"binary garbage", garbage, "", true},
		{"hostile event name", []byte(`{"hook_event_name":"../../../x","session_id":"` + good + `"}`), "", true},
		{"hostile EVENT argument", []byte(`{"session_id":"` + good + `"}`), "../../x", true},
		{"wrong field types", []byte(`{"hook_event_name":"PostToolUse","session_id":"` + good + `","tool_name":["Read"],"tool_input":"oops","tool_response":42,"cwd":{"a":1},"duration_ms":"slow","transcript_path":7}`), "", false},
		{"10 MB prompt", []byte(`{"hook_event_name":"UserPromptSubmit","session_id":"` + good + `","prompt":"` + hugePrompt + `"}`), "", false},
		{"unknown event", []byte(`{"hook_event_name":"TotallyNewEvent","session_id":"` + good + `","x":[1,2,3]}`), "", false},
		{"hostile paths in fields", []byte(`{"hook_event_name":"PostToolUse","session_id":"` + good + `","cwd":"/","tool_name":"Write","tool_input":{"file_path":"../../../etc/passwd"},"tool_response":{"type":"create"},"agent_id":"../../x"}`), "", false},
	}
	before := tree(t, base)
	run := func(payload []byte, event string) hookResult {
		t.Helper()
		res := runBinary(t, p, payload, event)
		if res.code != 0 || strings.Contains(res.stderr, "internal error") {
			t.Errorf("exit %d: %s", res.code, res.stderr)
		}
		return res
	}
	run([]byte(`{"hook_event_name":"SessionStart","session_id":"`+good+`","source":"startup"}`), "")
	wantRejected := 0
	for _, c := range cases {
		res := run(c.payload, c.event)
		if c.rejected {
			wantRejected++
			if !strings.Contains(res.stderr, "rejected") {
				t.Errorf("%s: not reported as rejected: %q", c.name, res.stderr)
			}
		}
		if res.stdout != "" {
			t.Errorf("%s: printed %q", c.name, res.stdout)
		}
	}
	run([]byte(`{"hook_event_name":"Stop","session_id":"`+good+`"}`), "")

	// Nothing outside .spcstr, anywhere in the temporary folder.
	after := tree(t, base)
	beforeSet := map[string]bool{}
	for _, f := range before {
		beforeSet[f] = true
	}
	spcstrDir := filepath.Join(filepath.Base(p.root), ".spcstr") + "/"
	regDir, _ := filepath.Rel(base, filepath.Dir(p.reg)) // the registry may be written
	for _, f := range after {
		if !beforeSet[f] && !strings.HasPrefix(f, spcstrDir) && !strings.HasPrefix(f, regDir+"/") {
			t.Errorf("written outside .spcstr: %s", f)
		}
	}
	if _, err := os.Stat(absEscape); err == nil {
		t.Error("absolute session id created a folder")
	}
	ids, _ := p.layout().SessionIDs()
	if strings.Join(ids, ",") != good {
		t.Errorf("session folders: %v", ids)
	}
	if n := len(p.log(logs.Name(logs.Rejected, ""))); n != wantRejected {
		t.Errorf("rejected.json has %d entries, want %d", n, wantRejected)
	}
	// The valid events around the hostile ones are recorded.
	s := p.state(good)
	want := map[string]int{"SessionStart": 1, "PostToolUse": 2, "UserPromptSubmit": 1, "TotallyNewEvent": 1, "Stop": 1}
	if fmt.Sprint(s.EventCounts) != fmt.Sprint(want) {
		t.Errorf("event counts %v, want %v", s.EventCounts, want)
	}
	if s.Status != "waiting" || len(s.Prompts) != 1 || !s.Prompts[0].Truncated || len(s.Prompts[0].Prompt) > 64<<10 {
		t.Errorf("state: status %q, %d prompts (truncated %v, %d bytes)", s.Status, len(s.Prompts), len(s.Prompts) > 0 && s.Prompts[0].Truncated, len(s.Prompts[0].Prompt))
	}
	if len(p.log("totally_new_event")) != 1 {
		t.Error("unknown event not logged to its own file")
	}
	up := p.log("user_prompt_submit")
	if len(up) != 1 || up[0]["truncated"] == nil {
		t.Errorf("10 MB prompt not capped in the log: %v", up)
	}
	if fi, err := os.Stat(p.layout().LogPath("user_prompt_submit")); err != nil || fi.Size() > 100<<10 {
		t.Errorf("user_prompt_submit.json size: %v", fi)
	}
	if fi, err := os.Stat(p.layout().LogPath(logs.Name(logs.Rejected, ""))); err != nil || fi.Size() > 200<<10 {
		t.Errorf("rejected.json size: %v", fi)
	}
	checkProject(t, p)
}

// TestCrashSafety kills hook processes with SIGKILL at random moments,
// many times, then appends once more normally: every file parses, nothing
// is set aside, and every event whose hook finished before is still there.
func TestCrashSafety(t *testing.T) {
	p := newProject(t)
	const id = "crash-session"
	rng := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	payload := func(i int) []byte {
		// Large entries (a 60 KB tool_response) widen the write window.
		return readPayload(p, id, "Read", fmt.Sprintf("tu-%04d", i), filepath.Join(p.root, fmt.Sprintf("f%04d.go", i)), 60<<10)
	}
	var durations []time.Duration
	completed := map[int]bool{}
	for i := 0; i < 8; i++ {
		t0 := time.Now()
		if res := runBinary(t, p, payload(i), ""); res.code != 0 {
			t.Fatalf("warm-up hook: %d %s", res.code, res.stderr)
		}
		durations = append(durations, time.Since(t0))
		completed[i] = true
	}
	sort.Slice(durations, func(a, b int) bool { return durations[a] < durations[b] })
	median := durations[len(durations)/2]

	attempts := 200
	if testing.Short() {
		attempts = 60
	}
	const batch = 4
	killed := 0
	// The kill window follows the hooks' recent run time: a machine whose
	// load changes after the warm-up would otherwise kill almost none (or
	// all) of them.
	var recent []time.Duration
	for n := 8; n < 8+attempts; n += batch {
		if len(recent) >= 4 {
			last := append([]time.Duration(nil), recent[max(0, len(recent)-16):]...)
			sort.Slice(last, func(a, b int) bool { return last[a] < last[b] })
			median = last[len(last)/2]
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := n; i < n+batch; i++ {
			cmd := binaryCmd(p, payload(i), "")
			started := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Anywhere from early in the run to a little after its usual end.
			delay := median/8 + time.Duration(rng.Int64N(int64(median*11/8)))
			wg.Add(1)
			go func(i int, cmd *exec.Cmd) {
				defer wg.Done()
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case err := <-done:
					mu.Lock()
					completed[i] = err == nil
					recent = append(recent, time.Since(started))
					mu.Unlock()
					return
				case <-time.After(delay):
				}
				_ = cmd.Process.Signal(syscall.SIGKILL)
				err := <-done
				mu.Lock()
				defer mu.Unlock()
				if ee, ok := err.(*exec.ExitError); ok && ee.Sys().(syscall.WaitStatus).Signaled() {
					killed++
				} else {
					completed[i] = err == nil
				}
			}(i, cmd)
		}
		wg.Wait()
	}
	t.Logf("%d hooks: %d killed, %d finished (median run %v)", attempts, killed, len(completed)-8, median)
	if killed < attempts/10 {
		t.Errorf("only %d of %d hooks were killed: the test did not exercise crashes", killed, attempts)
	}
	// One more normal hook.
	last := 8 + attempts
	if res := runBinary(t, p, payload(last), ""); res.code != 0 {
		t.Fatalf("hook after the kills: %d %s", res.code, res.stderr)
	}
	completed[last] = true

	checkProject(t, p)
	checkNoInflight(t, p)
	s := p.state(id)
	files := map[string]bool{}
	for _, f := range s.Files.Read {
		files[f] = true
	}
	logged := loggedToolUseIDs(t, p.layout().LogPath("post_tool_use"))
	for i, ok := range completed {
		if !ok {
			continue
		}
		if !files[fmt.Sprintf("f%04d.go", i)] {
			t.Errorf("state lost the update of finished hook %d", i)
		}
		if logged[fmt.Sprintf("tu-%04d", i)] != 1 {
			t.Errorf("log lost the entry of finished hook %d", i)
		}
	}
	if s.ToolsUsed["Read"] < len(files) || len(files) < 9 {
		t.Errorf("tools %v, %d files", s.ToolsUsed, len(files))
	}
	if rep := p.log("repairs"); len(rep) > 0 {
		t.Logf("%d torn tails repaired", len(rep))
	}
	var leftovers []string
	for _, f := range tree(t, p.layout().Dir()) {
		if !strings.HasSuffix(f, ".json") && !strings.HasSuffix(f, ".jsonl") && !strings.HasSuffix(f, ".lock") && !strings.HasSuffix(f, "/") &&
			!strings.HasSuffix(f, ".state.json.spare") && // the spare state.json is written through, not a leftover
			f != "logs/"+logs.SlotsFile {
			leftovers = append(leftovers, f)
		}
	}
	if len(leftovers) > 0 {
		t.Logf("temporary files left by killed hooks: %d (e.g. %s)", len(leftovers), leftovers[0])
	}
}

// checkNoInflight fails if an append is still marked in flight once the
// hooks are done: a marker folder, or a set slot in the slots file.
func checkNoInflight(t *testing.T, p *project) {
	t.Helper()
	if markers, _ := os.ReadDir(filepath.Join(p.layout().LogsDir(), logs.InflightDir)); len(markers) > 0 {
		t.Errorf("in-flight markers left: %d", len(markers))
	}
	slots, err := os.ReadFile(filepath.Join(p.layout().LogsDir(), logs.SlotsFile))
	if err != nil || len(slots) == 0 {
		t.Fatalf("no in-flight slots file: %v", err)
	}
	for i, b := range slots {
		if b != 0 {
			t.Errorf("in-flight slot %d left set (%d) after the last hook", i, b)
		}
	}
}
