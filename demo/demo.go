// Package demo plays bundled, real Claude Code sessions into a scratch
// project through the real "spcstr hook", at a pace a person can watch, so
// that the dashboard has something live to show (spcstr demo). The sessions
// were recorded with the real-client harness (see scenarios/): their hook
// payloads, relative timing and transcript usage lines are embedded here.
// They are played through package replay, the path spcstr replay takes.
package demo

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/replay"
)

//go:embed sessions/*.jsonl
var bundled embed.FS

// Session is one bundled session.
type Session struct {
	Name       string
	ID         string
	Events     []Event
	Transcript []TranscriptLine
	// Stale plays the session without its SessionEnd and with a Claude Code
	// process id that no longer exists, so that it shows as gone.
	Stale bool
}

// Event is one hook invocation: when it came (ms after the session's first
// event) and its payload, with ${PROJECT} and ${CLAUDE_HOME} placeholders.
type Event struct {
	T       int64           `json:"t"`
	Payload json.RawMessage `json:"payload"`
}

// Name returns the payload's hook_event_name.
func (e Event) Name() string {
	var p struct {
		Name string `json:"hook_event_name"`
	}
	_ = json.Unmarshal(e.Payload, &p)
	return p.Name
}

// TranscriptLine is one trimmed transcript line and when it was written.
type TranscriptLine struct {
	T    int64
	Line []byte // the line without "t"
}

// staleSessions are played as crashed sessions.
var staleSessions = map[string]bool{"docs": true}

// order is the order sessions start in.
var order = []string{"feature", "background", "docs", "compact"}

// Sessions loads the bundled sessions.
func Sessions() ([]Session, error) {
	var out []Session
	for _, name := range order {
		s, err := load(name)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func load(name string) (Session, error) {
	s := Session{Name: name, Stale: staleSessions[name]}
	data, err := fs.ReadFile(bundled, path.Join("sessions", name+".jsonl"))
	if err != nil {
		return s, fmt.Errorf("bundled session %s: %w", name, err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var ev Event
		if err := json.Unmarshal(line, &ev); err != nil {
			return s, fmt.Errorf("bundled session %s: %w", name, err)
		}
		s.Events = append(s.Events, ev)
	}
	if len(s.Events) > 0 {
		var p struct {
			ID string `json:"session_id"`
		}
		_ = json.Unmarshal(s.Events[0].Payload, &p)
		s.ID = p.ID
	}
	tdata, err := fs.ReadFile(bundled, path.Join("sessions", name+".transcript.jsonl"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return s, err
	}
	for _, line := range bytes.Split(bytes.TrimSpace(tdata), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			return s, fmt.Errorf("bundled transcript %s: %w", name, err)
		}
		t, _ := strconv.ParseInt(string(m["t"]), 10, 64)
		delete(m, "t")
		b, _ := json.Marshal(m)
		s.Transcript = append(s.Transcript, TranscriptLine{T: t, Line: b})
	}
	return s, nil
}

// Options configures a demo run.
type Options struct {
	// Exe is the spcstr binary whose "hook" is run for every event.
	Exe string
	// Dir is the scratch project (made by Setup).
	Dir string
	// Speed scales the pace: 1 is a few events per second per session, 2
	// twice as fast, 0.5 half.
	Speed float64
	// Stagger is the delay between two sessions' starts at speed 1
	// (default 3 s).
	Stagger time.Duration
	// Stderr receives the hooks' own stderr (default: discarded).
	Stderr io.Writer
	// Progress is called after each event (may be nil).
	Progress func(session string, n, total int)
}

// Paths of a scratch project.
func RegistryPath(dir string) string { return filepath.Join(dir, ".demo", "sessions.json") }

// ClaudeHome is where the scratch project's transcripts live.
func ClaudeHome(dir string) string { return filepath.Join(dir, ".demo", "claude") }

// demoConfig turns on the feedback loop for the recorded sessions' agents
// (reviewer, test-lead, tester) in dry-run: the recorded sessions did what they did, so
// spcstr logs what it would have decided without pretending to enforce it.
const demoConfig = `# spcstr demo: the feedback loop on, in dry-run (decisions are logged, not enforced)
dry_run: true
feedback:
  enabled: true
  domains:
    backend:  {reviewer: reviewer, tester: tester}
    frontend: {reviewer: reviewer, tester: tester}
    python:   {reviewer: reviewer, tester: tester}
`

// demoRequirements gives the dashboard's requirements pane something to show:
// press s on it to satisfy it for the selected session.
const demoRequirements = `requirements:
  commit_plan:
    enabled: true
    scope: session
    trigger_tools: [Edit, Write]
    satisfied_by_skill: plan-review
    message: "Plan the change before editing: run /plan-review (or press s in the dashboard)."
  architecture_reviewed:
    enabled: true
    scope: branch
    trigger_tools: [Write]
    message: "Review the architecture once per branch."
`

// Setup makes dir a scratch project: a git repository on branch main with
// a README, a .spcstr/ whose config turns the feedback loop on (dry-run),
// and two requirements in .claude/requirements.yaml.
func Setup(ctx context.Context, dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, ".spcstr"), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(ClaudeHome(dir), 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		cmd := exec.CommandContext(ctx, "git", "init", "-q", "-b", "main", dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			// No git: a minimal repository is enough for branch detection.
			if err := os.MkdirAll(filepath.Join(dir, ".git", "refs", "heads"), 0o755); err != nil {
				return fmt.Errorf("git init: %v: %s", err, out)
			}
			if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
				return err
			}
		}
	}
	for path, text := range map[string]string{
		filepath.Join(dir, ".spcstr", "config.yaml"):       demoConfig,
		filepath.Join(dir, ".claude", "requirements.yaml"): demoRequirements,
	} {
		if _, err := os.Stat(path); err == nil {
			continue // keep a --dir project's own settings
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	readme := "# spcstr demo\n\nA scratch project fed with recorded Claude Code sessions by `spcstr demo`.\n"
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".spcstr/\n.demo/\n"), 0o644)
}

// Delay is how long to wait before an event that came gap after the
// previous one in the recording: a few events per second, longer pauses
// kept in part, divided by speed.
func Delay(gap time.Duration, speed float64) time.Duration {
	if speed <= 0 {
		speed = 1
	}
	d := 300*time.Millisecond + gap/2
	d = min(d, 2500*time.Millisecond)
	return time.Duration(float64(d) / speed)
}

// Play feeds the sessions into opt.Dir through the replay path (package
// replay, as spcstr replay does): each session's events in order, paced
// by Delay, sessions starting opt.Stagger apart so that several are live
// at once, the whole timeline divided by opt.Speed. It returns when every
// session is played, a hook fails, or ctx ends.
func Play(ctx context.Context, opt Options, sessions []Session) error {
	if opt.Speed <= 0 {
		opt.Speed = 1
	}
	if opt.Stagger <= 0 {
		opt.Stagger = 3 * time.Second
	}
	deadPID, err := deadPID(ctx, opt.Exe)
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(opt.Dir)
	if err != nil {
		return err
	}
	events := Timeline(dir, sessions, opt.Stagger, deadPID)
	var progress func(n, total int)
	if opt.Progress != nil {
		progress = func(n, total int) { opt.Progress("demo", n, total) }
	}
	return replay.Play(ctx, replay.Options{
		Exe: opt.Exe, Dir: dir, Registry: RegistryPath(dir), Speed: opt.Speed,
		Stderr: opt.Stderr, Progress: progress,
	}, events)
}

// Timeline is the sessions as one replay timeline into dir (at speed 1):
// session i starts at i × stagger; each event comes Delay after the one
// before it; the transcript grows as it did when recorded, just before
// each event; a stale session's events carry deadPID and no SessionEnd.
func Timeline(dir string, sessions []Session, stagger time.Duration, deadPID int) []replay.Event {
	home := ClaudeHome(dir)
	repl := strings.NewReplacer(jsonInner("${PROJECT}"), jsonInner(dir), jsonInner("${CLAUDE_HOME}"), jsonInner(home))
	var out []replay.Event
	for i, s := range sessions {
		at := stagger * time.Duration(i)
		pid := 0
		if s.Stale {
			pid = deadPID
		}
		tr := &transcript{lines: s.Transcript}
		var prev int64
		for n, ev := range s.Events {
			if s.Stale && ev.Name() == "SessionEnd" {
				continue
			}
			if n > 0 {
				at += Delay(time.Duration(ev.T-prev)*time.Millisecond, 1)
			}
			prev = ev.T
			payload := []byte(repl.Replace(string(ev.Payload)))
			if tr.path == "" {
				var p struct {
					T string `json:"transcript_path"`
				}
				_ = json.Unmarshal(payload, &p)
				tr.path = p.T
			}
			upTo := ev.T
			out = append(out, replay.Event{At: at, Session: s.Name, Payload: payload, PID: pid,
				Before: func() error { return tr.grow(upTo) }})
		}
	}
	return out
}

// transcript is a session's transcript as it is written during the play.
type transcript struct {
	path    string
	lines   []TranscriptLine
	written int
}

// grow appends the recorded lines written up to ms t.
func (tr *transcript) grow(t int64) error {
	next := tr.written
	for next < len(tr.lines) && tr.lines[next].T <= t {
		next++
	}
	if next == tr.written || tr.path == "" {
		return nil
	}
	if err := appendLines(tr.path, tr.lines[tr.written:next]); err != nil {
		return err
	}
	tr.written = next
	return nil
}

// deadPID returns the pid of a process that has exited (the stale
// session's "Claude Code").
func deadPID(ctx context.Context, exe string) (int, error) {
	cmd := exec.CommandContext(ctx, exe, "version")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("run %s: %w", exe, err)
	}
	return cmd.Process.Pid, nil
}

func appendLines(path string, lines []TranscriptLine) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, l := range lines {
		// A bufio.Writer keeps its first error, and Flush returns it.
		_, _ = w.Write(l.Line)
		_ = w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// jsonInner is s as it appears inside a JSON string.
func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// Count returns the number of events Play will run.
func Count(sessions []Session) int {
	n := 0
	for _, s := range sessions {
		for _, ev := range s.Events {
			if s.Stale && ev.Name() == "SessionEnd" {
				continue
			}
			n++
		}
	}
	return n
}
