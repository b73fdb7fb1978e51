// Command hookwrap is the capture wrapper the real-client harness
// registers for every hook event:
//
//	hookwrap --event EVENT --out OUTDIR
//
// It reads the payload Claude Code sends on stdin, appends one record to
// OUTDIR/captured.jsonl (under a file lock, so parallel hooks never
// interleave), then runs the hook command in OUTDIR/hook_command.txt (via
// bash -c, with the same stdin bytes, environment and working directory),
// passes its stdout and stderr through and exits with its exit code, so
// Claude Code sees exactly what the hook command did. The command's result
// goes to OUTDIR/hook_results.jsonl. An empty command only captures.
//
//	hookwrap helper NAME
//
// runs one of the scenarios' helper hooks (stop-block, allow-write) on
// stdin; see the harness package.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "helper" {
		os.Exit(helper(os.Args[2], os.Stdin, os.Stdout))
	}
	event := flag.String("event", "", "the hook event this registration is for")
	out := flag.String("out", "", "the run's output folder")
	flag.Parse()
	if *event == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: hookwrap --event EVENT --out OUTDIR | hookwrap helper NAME")
		os.Exit(2)
	}
	code, err := wrap(*event, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hookwrap:", err)
	}
	os.Exit(code)
}

var secretish = regexp.MustCompile(`(?i)TOKEN|SECRET|PASSWORD|API_KEY|AUTH`)

func wrap(event, out string) (int, error) {
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		return 1, err
	}
	cwd, _ := os.Getwd()
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "CLAUDE") && !inList(k, "PWD", "HOME", "IS_SANDBOX", "ANTHROPIC_BASE_URL", "SHELL", "USER") {
			continue
		}
		if secretish.MatchString(k) {
			v = "<redacted>"
		}
		env[k] = v
	}
	rec := map[string]any{
		"ts": float64(time.Now().UnixMicro()) / 1e6, "event": event, "pid": os.Getpid(), "cwd": cwd,
		"CLAUDE_PROJECT_DIR": os.Getenv("CLAUDE_PROJECT_DIR"), "env": sorted(env),
	}
	if json.Valid(raw) {
		rec["payload"] = json.RawMessage(raw)
	} else {
		rec["payload_raw"] = string(raw)
	}
	if err := appendLine(filepath.Join(out, "captured.jsonl"), rec); err != nil {
		return 1, err
	}

	cmdText, _ := os.ReadFile(filepath.Join(out, "hook_command.txt"))
	code, stdout, stderr := 0, []byte{}, []byte{}
	if c := strings.TrimSpace(string(cmdText)); c != "" {
		cmd := exec.Command("bash", "-c", c)
		cmd.Stdin = bytes.NewReader(raw)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		// Claude Code ends a hook it no longer waits for (a permission
		// dialog answered in the terminal): the command under test gets
		// that signal, as it would registered directly.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		if err := cmd.Start(); err != nil {
			return 1, err
		}
		go func() {
			if s, ok := <-sigs; ok {
				_ = syscall.Kill(-cmd.Process.Pid, s.(syscall.Signal))
			}
		}()
		err := cmd.Wait()
		signal.Stop(sigs)
		close(sigs)
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			code = exit.ExitCode()
			if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				code = 128 + int(ws.Signal())
			}
		case err != nil:
			return 1, err
		}
		stdout, stderr = o.Bytes(), e.Bytes()
	}
	os.Stdout.Write(stdout) //nolint:errcheck // Claude Code reads what it gets
	os.Stderr.Write(stderr) //nolint:errcheck
	err = appendLine(filepath.Join(out, "hook_results.jsonl"), map[string]any{
		"ts": float64(time.Now().UnixMicro()) / 1e6, "event": event, "exit_code": code,
		"stdout": string(stdout), "stderr": string(stderr)})
	return code, err
}

func inList(s string, list ...string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

// sorted keeps the env map's keys in order in the record.
func sorted(m map[string]string) json.RawMessage {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(m[k])
		b.Write(kb)
		b.WriteString(": ")
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// appendLine appends v as one JSON line under an exclusive lock.
func appendLine(path string, v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing unlocks too
	_, err = f.Write(append(line, '\n'))
	return err
}

// helper runs a scenario's helper hook:
//   - stop-block blocks the first Stop (stop_hook_active false) with a
//     reason that asks for a CHANGELOG.md entry, and lets the second pass;
//   - allow-write answers PermissionRequest for Write with "allow" and
//     leaves every other request to Claude Code's default (deny in -p).
func helper(name string, in io.Reader, out io.Writer) int {
	var p struct {
		Event          string `json:"hook_event_name"`
		Tool           string `json:"tool_name"`
		StopHookActive bool   `json:"stop_hook_active"`
	}
	if err := json.NewDecoder(in).Decode(&p); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	var answer any
	switch name {
	case "stop-block":
		if p.Event == "Stop" && !p.StopHookActive {
			answer = map[string]string{"decision": "block",
				"reason": "STOP_BLOCKED_ONCE: add a CHANGELOG.md entry before you stop."}
		}
	case "allow-write":
		if p.Event == "PermissionRequest" && p.Tool == "Write" {
			answer = map[string]any{"hookSpecificOutput": map[string]any{
				"hookEventName": "PermissionRequest", "decision": map[string]string{"behavior": "allow"}}}
		}
	default:
		fmt.Fprintf(os.Stderr, "helper: no helper %q\n", name)
		return 2
	}
	if answer != nil {
		b, _ := json.Marshal(answer)
		fmt.Fprintf(out, "%s\n", b)
	}
	return 0
}
