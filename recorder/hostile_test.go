package recorder

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dylan-gluck/spcstr/internal/config"
)

// limited runs the real spcstr binary with args in dir, under a 4 GiB
// address-space limit (so that a regression reading /dev/zero whole fails
// fast instead of eating the machine) and a deadline. timedOut reports a
// run that had to be killed.
func limited(t *testing.T, dir string, env []string, stdin []byte, timeout time.Duration, args ...string) (res hookResult, timedOut bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	sh := `ulimit -v 4194304 2>/dev/null; exec "$0" "$@"`
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", sh, spcstrBin}, args...)...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run spcstr: %v", err)
	}
	return hookResult{code, out.String(), errOut.String()}, ctx.Err() != nil
}

func (p *project) envList() []string {
	var env []string
	for k, v := range p.env {
		env = append(env, k+"="+v)
	}
	return env
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHostileProjectFiles: a committed config file that is a symlink to
// /dev/zero or /dev/urandom, or a FIFO, used to make every hook die of
// "out of memory" (exit 2: a block on PreToolUse) or hang; req and doctor
// died too. Now each is a reported error: hooks exit 0 at once and record
// the event, req and doctor report the file.
func TestHostileProjectFiles(t *testing.T) {
	files := []string{".claude/requirements.yaml", ".spcstr/config.yaml", ".claude/config/orchestration-limits.yaml"}
	targets := []string{"/dev/zero", "/dev/urandom", "fifo"}
	for _, file := range files {
		for _, target := range targets {
			t.Run(file+"→"+target, func(t *testing.T) {
				p := newProject(t)
				if file != ".spcstr/config.yaml" {
					write(t, filepath.Join(p.root, ".spcstr/config.yaml"), "feedback:\n  enabled: true\n")
				}
				path := filepath.Join(p.root, file)
				_ = os.MkdirAll(filepath.Dir(path), 0o755)
				if target == "fifo" {
					if err := syscall.Mkfifo(path, 0o644); err != nil {
						t.Fatal(err)
					}
				} else if err := os.Symlink(target, path); err != nil {
					t.Fatal(err)
				}
				const id = "hostile-files"
				for _, pl := range []string{
					`{"hook_event_name":"SessionStart","session_id":"` + id + `","source":"startup"}`,
					`{"hook_event_name":"PreToolUse","session_id":"` + id + `","tool_name":"Edit","tool_use_id":"t1","tool_input":{"file_path":"a.go"}}`,
				} {
					t0 := time.Now()
					res, timedOut := limited(t, p.root, p.envList(), []byte(pl), 20*time.Second, "hook")
					if timedOut || res.code != 0 || strings.Contains(res.stderr, "fatal error") {
						t.Fatalf("hook: exit %d, timed out %v after %v: %.300s", res.code, timedOut, time.Since(t0), res.stderr)
					}
					if strings.Contains(res.stdout, "deny") || strings.Contains(res.stdout, "block") {
						t.Errorf("hook answered %s", res.stdout)
					}
				}
				if n := len(p.log("pre_tool_use")); n != 1 {
					t.Errorf("pre_tool_use.json has %d entries", n)
				}
				for _, args := range [][]string{{"req", "list"}, {"req", "status"}, {"doctor"}} {
					res, timedOut := limited(t, p.root, p.envList(), nil, 20*time.Second, args...)
					if timedOut || res.code > 1 || strings.Contains(res.stderr, "fatal error") {
						t.Errorf("%v: exit %d, timed out %v: %.300s", args, res.code, timedOut, res.stderr)
					}
				}
			})
		}
	}
}

// TestBlockingInputs: a FIFO as transcript_path or in place of state.json
// used to hang the hook for ever (holding the session's lock), and so did
// a stdin that is never closed. Each now ends promptly and the event is
// recorded.
func TestBlockingInputs(t *testing.T) {
	p := newProject(t)
	const id = "blocking"
	fifo := filepath.Join(t.TempDir(), "transcript.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(payload string) hookResult {
		t.Helper()
		res, timedOut := limited(t, p.root, p.envList(), []byte(payload), 20*time.Second, "hook")
		if timedOut || res.code != 0 {
			t.Fatalf("hook: exit %d, timed out %v: %s", res.code, timedOut, res.stderr)
		}
		return res
	}
	run(`{"hook_event_name":"SessionStart","session_id":"` + id + `","transcript_path":"` + fifo + `"}`)
	run(`{"hook_event_name":"Stop","session_id":"` + id + `","transcript_path":"` + fifo + `"}`)
	s := p.state(id)
	if s.EventCounts["Stop"] != 1 || !strings.Contains(fmt.Sprint(s.Errors), "not a regular file") {
		t.Errorf("FIFO transcript: events %v, errors %v", s.EventCounts, s.Errors)
	}

	// A FIFO where state.json belongs is set aside; the session goes on.
	statePath, _ := p.layout().StatePath(id)
	if err := os.Remove(statePath); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(statePath, 0o644); err != nil {
		t.Fatal(err)
	}
	run(`{"hook_event_name":"Stop","session_id":"` + id + `"}`)
	s = p.state(id)
	if s.EventCounts["Stop"] != 1 || !strings.Contains(fmt.Sprint(s.Errors), "set aside") {
		t.Errorf("FIFO state.json: events %v, errors %v", s.EventCounts, s.Errors)
	}
	if asides, _ := filepath.Glob(statePath + ".corrupt-*"); len(asides) != 1 {
		t.Errorf("FIFO state.json not set aside: %v", asides)
	}

	// A FIFO where observability.jsonl belongs is set aside too, never
	// waited on, and the hook's events start a new one.
	obsPath, _ := p.layout().ObservabilityPath(id)
	if err := os.Remove(obsPath); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(obsPath, 0o644); err != nil {
		t.Fatal(err)
	}
	run(`{"hook_event_name":"Stop","session_id":"` + id + `"}`)
	if asides, _ := filepath.Glob(obsPath + ".corrupt-*"); len(asides) != 1 {
		t.Errorf("FIFO observability.jsonl not set aside: %v", asides)
	}
	if fi, err := os.Lstat(obsPath); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		t.Errorf("no new observability.jsonl after the FIFO: %v, %v", fi, err)
	}

	// A stdin that is never closed: the hook gives up after the timeout
	// and records the payload it got.
	cmd := exec.Command(spcstrBin, "hook")
	cmd.Dir = p.root
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "SPCSTR_STDIN_TIMEOUT=1s"}, p.envList()...)
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(w, `{"hook_event_name":"UserPromptSubmit","session_id":%q,"prompt":"still open"}`, id)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("hook with open stdin: %v", err)
		}
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("hook with a stdin that is never closed did not give up")
	}
	up := p.log("user_prompt_submit")
	if len(up) != 1 || !strings.Contains(fmt.Sprint(up[0]["outcome"]), "stdin not closed") {
		t.Errorf("payload of the open stdin not recorded with its error: %v", up)
	}
}

// snapshot maps every path under dir to its content (folders to "/").
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			out[p] = "/"
			return nil
		}
		data, _ := os.ReadFile(p)
		out[p] = string(data)
		return nil
	})
	return out
}

// TestSymlinksOutOfSpcstr: a symlink inside .spcstr/ leading out of it
// (a folder, a log, state.json, a lock file) used to make spcstr append
// to, truncate, create and rename files outside the project. Nothing
// outside changes now, and hooks still exit 0.
func TestSymlinksOutOfSpcstr(t *testing.T) {
	const id = "escape"
	links := []struct{ at, kind string }{
		{"logs", "dir"},
		{"sessions", "dir"},
		{"sessions/" + id, "dir"},
		{"logs/post_tool_use.json", "log"},
		{"logs/.post_tool_use.json.lock", "file"},
		{"logs/.inflight", "dir"},
		{"logs/.inflight.slots", "file"},
		{"sessions/" + id + "/state.json", "state"},
		{"sessions/" + id + "/.state.json.lock", "file"},
		{"sessions/" + id + "/.state.json.spare", "file"},
		{"sessions/" + id + "/observability.jsonl", "log"},
	}
	for _, l := range links {
		t.Run(l.at, func(t *testing.T) {
			p := newProject(t)
			outside := t.TempDir()
			target := filepath.Join(outside, "target")
			switch l.kind {
			case "dir":
				write(t, filepath.Join(target, "post_tool_use.json"), "[\n{\"outside\":1},\n{\"torn\":")
				write(t, filepath.Join(target, "state.json"), `{"outside":true}`)
				write(t, filepath.Join(target, id, "state.json"), `{"outside":true}`)
			case "log":
				write(t, target, "[\n{\"outside\":1},\n{\"torn\":")
			case "state":
				write(t, target, `not json, outside`)
			default:
				write(t, target, "outside")
			}
			// A first hook creates the tree; then the link replaces a part.
			runBinary(t, p, readPayload(p, id, "Read", "t0", "a.go", 10), "")
			at := filepath.Join(p.layout().Dir(), l.at)
			if err := os.RemoveAll(at); err != nil {
				t.Fatal(err)
			}
			_ = os.MkdirAll(filepath.Dir(at), 0o755)
			if err := os.Symlink(target, at); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, outside)
			for i := 1; i <= 3; i++ {
				res := runBinary(t, p, readPayload(p, id, "Read", fmt.Sprintf("t%d", i), "a.go", 10), "")
				if res.code != 0 || strings.Contains(res.stderr, "internal error") {
					t.Errorf("hook: exit %d: %s", res.code, res.stderr)
				}
			}
			after := snapshot(t, outside)
			if fmt.Sprint(before) != fmt.Sprint(after) {
				t.Errorf("outside changed:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// hostileText is the payload set every human-facing output is tested with.
var hostileText = []string{
	"\x1b]0;TITLE\x07", "\x1b]2;TITLE\x1b\\", "\x1b]52;c;cm0gLXJmIH4K\x07", "\x1b[2J\x1b[H\x1b[31m",
	"\u009b2J", "\u009d0;TITLE\u009c", "\x07", "ab\x08\x08", "shown\rhidden",
}

// terminalSafe reports the first byte or rune in out that a terminal would
// act on (anything but text, newline and tab).
func terminalSafe(out string) error {
	if !utf8.ValidString(out) {
		return fmt.Errorf("invalid UTF-8 (raw 8-bit bytes)")
	}
	for i, r := range out {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return fmt.Errorf("control %U at byte %d: %q", r, i, out[max(0, i-20):min(len(out), i+20)])
		}
	}
	return nil
}

// TestTerminalOutputs: untrusted text (the project folder's name, prompts,
// tool names, notification types, requirement names and messages from a
// committed file) reached the terminal raw in export, req and doctor.
func TestTerminalOutputs(t *testing.T) {
	evil := strings.Join(hostileText, "")
	base := t.TempDir()
	// The project folder's own name carries escapes.
	rootName := "proj\x1b]52;c;eA==\x07\x1b[31m\u009b1m"
	root := filepath.Join(base, rootName)
	write(t, filepath.Join(root, ".spcstr", "config.yaml"), "")
	write(t, filepath.Join(root, ".claude", "requirements.yaml"), fmt.Sprintf(
		"requirements:\n  %q:\n    enabled: true\n    scope: session\n    message: %q\n    satisfied_by_skill: %q\n",
		"req"+evil, "msg"+evil, "skill"+evil))
	home := t.TempDir()
	p := &project{t: t, root: root, reg: filepath.Join(home, "sessions.json")}
	p.env = map[string]string{"CLAUDE_PROJECT_DIR": root, "SPCSTR_REGISTRY": p.reg, "HOME": home}
	const id = "11111111-2222-3333-4444-555555555555"
	js := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for _, pl := range []string{
		`{"hook_event_name":"SessionStart","session_id":"` + id + `","source":"startup"}`,
		`{"hook_event_name":"UserPromptSubmit","session_id":"` + id + `","prompt":` + js("prompt"+evil) + `}`,
		`{"hook_event_name":"PreToolUse","session_id":"` + id + `","tool_name":` + js("Tool"+evil) + `,"tool_use_id":"t1","tool_input":{"command":` + js(evil) + `}}`,
		`{"hook_event_name":"PostToolUse","session_id":"` + id + `","tool_name":` + js("Tool"+evil) + `,"tool_use_id":"t1","tool_input":{"command":` + js(evil) + `},"tool_response":` + js(evil) + `}`,
		`{"hook_event_name":"Notification","session_id":"` + id + `","notification_type":` + js("type"+evil) + `,"message":` + js(evil) + `}`,
		`{"hook_event_name":"Stop","session_id":"` + id + `"}`,
	} {
		if res := runBinary(t, p, []byte(pl), ""); res.code != 0 {
			t.Fatalf("hook: %d %s", res.code, res.stderr)
		}
	}
	env := append(p.envList(), "CLAUDE_CODE_SESSION_ID="+id)
	for _, args := range [][]string{
		{"export"}, {"export", "--format", "json"}, {"export", "--all"},
		{"req", "list"}, {"req", "status"}, {"req", "list", "--json"}, {"req", "satisfy", "nope" + evil},
		{"doctor"}, {"doctor", "--json"},
	} {
		res, timedOut := limited(t, root, env, nil, 30*time.Second, args...)
		if timedOut {
			t.Errorf("%v timed out", args)
			continue
		}
		if err := terminalSafe(res.stdout); err != nil {
			t.Errorf("spcstr %s: stdout: %v", strings.Join(args, " "), err)
		}
		if err := terminalSafe(res.stderr); err != nil {
			t.Errorf("spcstr %s: stderr: %v", strings.Join(args, " "), err)
		}
		if strings.Contains(args[len(args)-1], "json") || (len(args) > 2 && args[2] == "json") {
			var v any
			if err := json.Unmarshal([]byte(res.stdout), &v); err != nil && res.stdout != "" {
				t.Errorf("spcstr %s: JSON no longer parses: %v", strings.Join(args, " "), err)
			}
		}
	}
}

// TestRegistryWithPython runs spcstr's SessionStart hooks and a writer
// using the Python requirements framework's locking protocol on one
// registry at the same time: spcstr never loses the framework's sessions,
// and an spcstr entry undone in the gap the framework's own protocol
// leaves unlocked is registered again by the session's next event: in the
// end nothing is lost (before, most of both were lost).
func TestRegistryWithPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed for the registry protocol test")
	}
	const nGo, parallel = 50, 10
	p := newProject(t)
	p.env["CLAUDE_PID"] = fmt.Sprint(os.Getpid()) // alive: nothing is pruned
	script, _ := filepath.Abs("testdata/registry_client.py")
	stop := filepath.Join(t.TempDir(), "stop")
	pyCmd := exec.Command(py, script, p.reg, fmt.Sprint(os.Getpid()), stop)
	var pyOut, pyErr bytes.Buffer
	pyCmd.Stdout, pyCmd.Stderr = &pyOut, &pyErr
	_ = os.MkdirAll(filepath.Dir(p.reg), 0o755)
	if err := pyCmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pyCmd.Process.Kill() }()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if data, _ := os.ReadFile(p.reg); bytes.Contains(data, []byte("py00001")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("python writer did not start: %s", pyErr.String())
		}
	}
	sem := make(chan struct{}, parallel)
	errs := make(chan string, nGo)
	for i := 0; i < nGo; i++ {
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem }()
			pl := fmt.Sprintf(`{"hook_event_name":"SessionStart","session_id":"go%06d-aaaa","source":"startup"}`, i)
			if res := runBinary(t, p, []byte(pl), ""); res.code != 0 || res.stderr != "" {
				errs <- fmt.Sprintf("hook %d: %d %s", i, res.code, res.stderr)
			}
		}(i)
	}
	for i := 0; i < parallel; i++ {
		sem <- struct{}{}
	}
	write(t, stop, "")
	if err := pyCmd.Wait(); err != nil || pyErr.Len() > 0 {
		t.Fatalf("python writer: %v %s", err, pyErr.String())
	}
	var nPy int
	if _, err := fmt.Sscan(pyOut.String(), &nPy); err != nil {
		t.Fatalf("python writer output %q", pyOut.String())
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	lostGo, lostPy := registryLosses(t, p.reg, nGo, nPy)
	if len(lostPy) > 0 {
		t.Errorf("spcstr lost %d of %d Python entries %v", len(lostPy), nPy, lostPy)
	}
	// The framework's own protocol leaves a gap (between its read and its
	// rename) that no other writer can see, so a SessionStart's entry can
	// be undone; the session's next event registers it again.
	t.Logf("after the concurrent SessionStarts, %d of %d spcstr entries were missing", len(lostGo), nGo)
	sem = make(chan struct{}, parallel)
	for i := 0; i < nGo; i++ {
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem }()
			pl := fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":"go%06d-aaaa","prompt":"next"}`, i)
			if res := runBinary(t, p, []byte(pl), ""); res.code != 0 || res.stderr != "" {
				t.Errorf("hook %d: %d %s", i, res.code, res.stderr)
			}
		}(i)
	}
	for i := 0; i < cap(sem); i++ {
		sem <- struct{}{}
	}
	lostGo, lostPy = registryLosses(t, p.reg, nGo, nPy)
	if len(lostGo) > 0 || len(lostPy) > 0 {
		t.Errorf("after each session's next event: lost %d of %d spcstr entries %v and %d of %d Python entries %v", len(lostGo), nGo, lostGo, len(lostPy), nPy, lostPy)
	}
}

// TestRegistryHealsUndoneEntry undoes a SessionStart's registration the
// way the framework's unlocked read-to-rename gap can (a stale copy
// renamed over the registry): the session's next event registers it again.
func TestRegistryHealsUndoneEntry(t *testing.T) {
	p := newProject(t)
	p.env["CLAUDE_PID"] = fmt.Sprint(os.Getpid())
	if res := runBinary(t, p, []byte(`{"hook_event_name":"SessionStart","session_id":"heal0001-aaaa","source":"startup"}`), ""); res.code != 0 {
		t.Fatalf("SessionStart: %d %s", res.code, res.stderr)
	}
	if lost, _ := registryLosses(t, p.reg, 0, 0); len(lost) > 0 {
		t.Fatal(lost)
	}
	stale := filepath.Join(filepath.Dir(p.reg), "sessions.tmp")
	write(t, stale, `{"version":"1.0","sessions":{"py000000":{"pid":1,"ppid":1}}}`)
	if err := os.Rename(stale, p.reg); err != nil {
		t.Fatal(err)
	}
	if res := runBinary(t, p, []byte(`{"hook_event_name":"UserPromptSubmit","session_id":"heal0001-aaaa","prompt":"go on"}`), ""); res.code != 0 {
		t.Fatalf("UserPromptSubmit: %d %s", res.code, res.stderr)
	}
	data, err := os.ReadFile(p.reg)
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		Sessions map[string]struct {
			SessionID  string `json:"session_id"`
			ProjectDir string `json:"project_dir"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(data, &reg); err != nil {
		t.Fatal(err)
	}
	if e, ok := reg.Sessions["heal0001"]; !ok || e.SessionID != "heal0001-aaaa" || e.ProjectDir == "" {
		t.Errorf("the next event did not register the session again: %s", data)
	}
	if _, ok := reg.Sessions["py000000"]; !ok {
		t.Errorf("the framework's entry was lost: %s", data)
	}
}

// registryLosses lists the spcstr (go%06d) and framework (py%05d) entries
// missing from the registry at path.
func registryLosses(t *testing.T, path string, nGo, nPy int) (lostGo, lostPy []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		Sessions map[string]json.RawMessage `json:"sessions"`
	}
	if err := json.Unmarshal(data, &reg); err != nil {
		t.Fatalf("registry does not parse: %v", err)
	}
	for i := 0; i < nGo; i++ {
		if _, ok := reg.Sessions[fmt.Sprintf("go%06d", i)]; !ok {
			lostGo = append(lostGo, fmt.Sprint(i))
		}
	}
	for i := 0; i < nPy; i++ {
		if _, ok := reg.Sessions[fmt.Sprintf("py%05d", i)]; !ok {
			lostPy = append(lostPy, fmt.Sprint(i))
		}
	}
	return lostGo, lostPy
}

// TestTornLogMendedByAnyEvent kills PostToolUse hooks at random moments
// within their run time, hundreds of times, then runs one hook of a
// different event (a Stop): every file under .spcstr/ parses strictly and
// no finished hook's entry is missing. Before, a torn post_tool_use.json
// stayed torn until the next PostToolUse (a torn session_end.json until
// some later session ended).
func TestTornLogMendedByAnyEvent(t *testing.T) {
	p := newProject(t)
	const id = "torn-any"
	// 4 MB entries (the payload cap raised to allow them) make each append
	// a long write that a kill can tear; rotation keeps each log small.
	write(t, filepath.Join(p.layout().Dir(), "config.yaml"), "logs:\n  max_payload_bytes: 16777216\n  max_bytes: 16777216\n")
	payload := func(i int) []byte {
		return readPayload(p, id, "Read", fmt.Sprintf("tu-%04d", i), filepath.Join(p.root, fmt.Sprintf("f%04d.go", i)), 4<<20)
	}
	var runs []time.Duration
	completed := map[int]bool{}
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		if res := runBinary(t, p, payload(i), ""); res.code != 0 {
			t.Fatalf("warm-up hook: %d %s", res.code, res.stderr)
		}
		runs = append(runs, time.Since(t0))
		completed[i] = true
	}
	// The kill window follows the hooks' recent run times (the median of
	// the last 16 that finished), not the warm-up's: under a load that
	// changes after the warm-up (a second test run beside this one), a
	// fixed window killed too few of them to test anything.
	recent := runs
	window := func() time.Duration {
		last := append([]time.Duration(nil), recent[max(0, len(recent)-16):]...)
		slices.Sort(last)
		return last[len(last)/2]
	}
	attempts := 200
	if testing.Short() {
		attempts = 60
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(11, seed))
	killed := 0
	for i := 5; i < 5+attempts; i++ {
		median := window()
		// Anywhere from early in the run to a little after its usual end.
		delay := median/8 + time.Duration(rng.Int64N(int64(median*11/8)))
		cmd := binaryCmd(p, payload(i), "")
		started := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			completed[i] = err == nil
			recent = append(recent, time.Since(started))
			continue
		case <-time.After(delay):
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		err := <-done
		if ee, ok := err.(*exec.ExitError); ok && ee.Sys().(syscall.WaitStatus).Signaled() {
			killed++
		} else {
			completed[i] = err == nil
		}
	}
	t.Logf("%d hooks: %d killed", attempts, killed)
	if killed < attempts/4 {
		t.Errorf("only %d of %d hooks were killed: the test did not exercise crashes", killed, attempts)
	}
	if res := runBinary(t, p, []byte(`{"hook_event_name":"Stop","session_id":"`+id+`"}`), ""); res.code != 0 {
		t.Fatalf("Stop hook: %d %s", res.code, res.stderr)
	}
	checkProject(t, p)
	logged := map[string]int{}
	rotated, _ := filepath.Glob(filepath.Join(p.layout().LogsDir(), "post_tool_use*.json"))
	for _, f := range rotated {
		for k, n := range loggedToolUseIDs(t, f) {
			logged[k] += n
		}
	}
	for i, ok := range completed {
		if ok && logged[fmt.Sprintf("tu-%04d", i)] != 1 {
			t.Errorf("log lost the entry of finished hook %d", i)
		}
	}
	checkNoInflight(t, p)
}

// TestUnappendableLogKeepsEvent runs a hook whose log cannot grow (a file
// size limit below the log's size, as a full disk would): the append is
// rolled back, the log stays whole, the hook exits 0 and the event is
// kept whole in rejected.json (before, it was lost with a stderr line).
func TestUnappendableLogKeepsEvent(t *testing.T) {
	p := newProject(t)
	const id = "fsize001"
	if res := runBinary(t, p, readPayload(p, id, "Read", "t0", "a.go", 200<<10), ""); res.code != 0 {
		t.Fatalf("first hook: %d %s", res.code, res.stderr)
	}
	logPath := p.layout().LogPath("post_tool_use")
	before, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	// 100 blocks is 50 or 100 KiB (sh's unit): below the 200 KiB log,
	// above what rejected.json and state.json need. The signal is ignored
	// so that the write fails with EFBIG instead of killing the hook.
	sh := `trap '' XFSZ; ulimit -f 100; exec "$0" "$@"`
	cmd := exec.Command("sh", "-c", sh, spcstrBin, "hook")
	cmd.Dir = p.root
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, p.envList()...)
	cmd.Stdin = bytes.NewReader(readPayload(p, id, "Read", "t1-kept", "b.go", 10))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hook under a file size limit: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(logPath); !bytes.Equal(before, after) {
		t.Errorf("the failed append was not rolled back (%d → %d bytes)", len(before), len(after))
	}
	var kept []struct {
		Reason string `json:"reason"`
		Event  string `json:"event"`
		Entry  struct {
			Input map[string]any `json:"input"`
		} `json:"entry"`
	}
	data, err := os.ReadFile(p.layout().LogPath("rejected"))
	if err != nil {
		t.Fatalf("no rejected.json: %v (output %s)", err, out)
	}
	if err := json.Unmarshal(data, &kept); err != nil {
		t.Fatalf("rejected.json: %v\n%s", err, data)
	}
	if len(kept) != 1 || kept[0].Event != "PostToolUse" || kept[0].Entry.Input["tool_use_id"] != "t1-kept" ||
		!strings.Contains(kept[0].Reason, "post_tool_use.json") {
		t.Fatalf("rejected.json = %s", data)
	}
	// The state is still a cache of the logs: a rebuild applies the kept
	// event too.
	cfg, _ := config.Load(p.layout().ConfigPath())
	rebuilt, err := Rebuild(context.Background(), p.layout(), id, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rebuilt.Files.Read, "b.go") || rebuilt.EventCounts["PostToolUse"] != 2 {
		t.Errorf("rebuilt state lacks the kept event: read %v, counts %v", rebuilt.Files.Read, rebuilt.EventCounts)
	}
}
