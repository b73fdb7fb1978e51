package replay

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/state"
)

// fakeHook is a stand-in for spcstr: it appends its stdin, its
// CLAUDE_PROJECT_DIR and the time to a file, one line per call.
func fakeHook(t *testing.T) (exe, out string) {
	t.Helper()
	dir := t.TempDir()
	out = filepath.Join(dir, "calls")
	exe = filepath.Join(dir, "spcstr")
	script := "#!/bin/sh\n[ \"$1\" = hook ] || exit 2\nprintf '%s %s %s\\n' \"$(cat)\" \"$CLAUDE_PROJECT_DIR\" \"$SPCSTR_REGISTRY\" >> " + out + "\n"
	// Written by a process of its own, which has exited (the file closed)
	// before the script runs: a file this process writes can be inherited,
	// open, by a concurrent fork, and running it fails with ETXTBSY.
	w := exec.Command("sh", "-c", `cat > "$1" && chmod 755 "$1"`, "sh", exe)
	w.Stdin = strings.NewReader(script)
	if out, err := w.CombinedOutput(); err != nil {
		t.Fatalf("write %s: %v: %s", exe, err, out)
	}
	return exe, out
}

func TestPlayOrderAndPace(t *testing.T) {
	exe, out := fakeHook(t)
	dir := t.TempDir()
	events := []Event{
		{At: 400 * time.Millisecond, Session: "s", Payload: []byte(`{"n":3}`)},
		{At: 0, Session: "s", Payload: []byte(`{"n":1}`)},
		{At: 200 * time.Millisecond, Session: "s", Payload: []byte(`{"n":2}`)},
	}
	before := 0
	events[1].Before = func() error { before++; return nil }
	start := time.Now()
	var progress []string
	err := Play(context.Background(), Options{Exe: exe, Dir: dir, Speed: 2, Progress: func(n, total int) {
		progress = append(progress, fmt.Sprint(n, "/", total))
	}}, events)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	// 400 ms of timeline at speed 2: at least 200 ms.
	if took < 200*time.Millisecond {
		t.Errorf("played in %v, want at least 200ms", took)
	}
	data, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	want := []string{`{"n":1}`, `{"n":2}`, `{"n":3}`}
	for i, l := range lines {
		if !strings.HasPrefix(l, want[i]+" "+dir+" "+RegistryPath(dir)) {
			t.Errorf("call %d: %q", i, l)
		}
	}
	if len(lines) != 3 || before != 1 || strings.Join(progress, " ") != "1/3 2/3 3/3" {
		t.Errorf("%d calls, Before ran %d times, progress %v", len(lines), before, progress)
	}
}

func TestPlayStopsWithContext(t *testing.T) {
	exe, out := fakeHook(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := Play(ctx, Options{Exe: exe, Dir: t.TempDir()}, []Event{{At: 0, Payload: []byte("{}")}, {At: time.Hour, Payload: []byte("{}")}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(out)
	if n := strings.Count(string(data), "\n"); n != 1 {
		t.Fatalf("%d calls before the context ended", n)
	}
}

func TestLoad(t *testing.T) {
	l := state.Layout{Root: filepath.Join(t.TempDir(), "proj")}
	if err := os.MkdirAll(l.LogsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	const id = "abcd1234-0000"
	for _, other := range []string{id, "abce0000-0000", "zz"} {
		if err := os.MkdirAll(filepath.Join(l.SessionsDir(), other), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	entry := func(ts, sid, event, input string) string {
		return fmt.Sprintf(`{"timestamp":%q,"session_id":%q,"event":%q,"input":%s}`, ts, sid, event, input)
	}
	write := func(name string, lines ...string) {
		data := "[\n" + strings.Join(lines, ",\n") + "\n]\n"
		if err := os.WriteFile(filepath.Join(l.LogsDir(), name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root := l.Root
	write("user_prompt_submit.json",
		entry("2026-01-01T10:00:01Z", id, "UserPromptSubmit", `{"prompt":"go","cwd":"`+root+`"}`),
		entry("2026-01-01T10:00:01Z", "abce0000-0000", "UserPromptSubmit", `{"prompt":"other"}`))
	write("session_start.json", entry("2026-01-01T10:00:00Z", id, "SessionStart", `{"source":"startup"}`))
	write("stop.json", entry("2026-01-01T12:00:00Z", id, "Stop", `{"cwd":"`+root+`/sub"}`))

	rec, err := Load(l, "abcd", "/scratch", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range rec.Events {
		got = append(got, fmt.Sprint(e.At, " ", string(e.Payload)))
	}
	want := []string{
		`0s {"source":"startup"}`,
		`1s {"prompt":"go","cwd":"/scratch"}`,
		`6s {"cwd":"/scratch/sub"}`, // two hours shortened to --max-gap
	}
	if rec.ID != id || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\n%s", rec.ID, strings.Join(got, "\n"))
	}
	for _, tc := range []struct{ id, err string }{
		{"abc", "matches 2 sessions"},
		{"nope", "unknown session \"nope\""},
		{"zz", "no recorded session zz in the logs"},
	} {
		if _, err := Load(l, tc.id, "", 0); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Load(%q): %v, want %q", tc.id, err, tc.err)
		}
	}
}

func TestSetup(t *testing.T) {
	for _, tc := range []struct{ branch, head string }{
		{"feature/login", "ref: refs/heads/feature/login\n"},
		{"", "ref: refs/heads/main\n"},
		{"../../etc", "ref: refs/heads/main\n"},
		{"bad\nname", "ref: refs/heads/main\n"},
	} {
		dir := t.TempDir()
		if err := Setup(dir, tc.branch); err != nil {
			t.Fatal(err)
		}
		head, _ := os.ReadFile(filepath.Join(dir, ".git", "HEAD"))
		if string(head) != tc.head || !(state.Layout{Root: dir}).Exists() {
			t.Errorf("branch %q: HEAD %q", tc.branch, head)
		}
	}
}

func TestCopyPolicy(t *testing.T) {
	from, to := t.TempDir(), t.TempDir()
	for rel, text := range map[string]string{
		".spcstr/config.yaml":       "feedback: {enabled: true}\n",
		".claude/requirements.yaml": "requirements: {}\n",
		".claude/settings.json":     "{}",
	} {
		p := filepath.Join(from, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A symlink to a device is not a policy file: it is refused, not read.
	os.MkdirAll(filepath.Join(from, ".claude", "config"), 0o755)
	os.Symlink("/dev/zero", filepath.Join(from, ".claude", "requirements.local.yaml"))
	copied, err := CopyPolicy(from, to)
	if err == nil || !strings.Contains(err.Error(), "requirements.local.yaml") {
		t.Fatalf("a symlink to /dev/zero: copied %v, err %v", copied, err)
	}
	os.Remove(filepath.Join(from, ".claude", "requirements.local.yaml"))
	copied, err = CopyPolicy(from, to)
	if err != nil || strings.Join(copied, " ") != ".spcstr/config.yaml .claude/requirements.yaml" {
		t.Fatalf("copied %v, %v", copied, err)
	}
	if data, _ := os.ReadFile(filepath.Join(to, ".spcstr", "config.yaml")); string(data) != "feedback: {enabled: true}\n" {
		t.Fatalf("config.yaml: %q", data)
	}
	if _, err := os.Stat(filepath.Join(to, ".claude", "settings.json")); err == nil {
		t.Fatal("settings.json (the hooks) was copied")
	}
}
