// Package replay owns playing recorded hook events back through the real
// recorder (spcstr replay, and spcstr demo): a timeline of payloads is fed
// to "spcstr hook" in a scratch project, in time order, with the recorded
// spacing divided by a speed, while the dashboard watches the scratch
// project. Load builds the timeline of a session from a project's logs;
// the demo builds its own from its bundled sessions.
//
// The scratch project has its own registry (and so its own projects list),
// and the hooks get an environment without the caller's CLAUDE_* and
// SPCSTR_* variables, so nothing played reaches the user's real sessions.
// They run with SPCSTR_DRY_RUN=1 and SPCSTR_REPLAY=1: gates decide and
// log, enforce nothing, and run no command (notify, escalation advisor).
package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// Event is one hook call of a timeline.
type Event struct {
	// At is when the event comes, from the start of the timeline (before
	// the speed divides it).
	At time.Duration
	// Session names the event's session in errors and progress.
	Session string
	// Payload is the hook's stdin.
	Payload []byte
	// PID is the CLAUDE_PID the hook is given (0: this process, which is
	// alive while the timeline plays).
	PID int
	// Before runs just before the hook (the demo grows the transcript as
	// it grew when recorded). May be nil.
	Before func() error
}

// Options configures Play.
type Options struct {
	// Exe is the spcstr binary whose "hook" is run for every event.
	Exe string
	// Dir is the scratch project.
	Dir string
	// Registry is the scratch project's session registry (default
	// RegistryPath(Dir)).
	Registry string
	// Speed divides the timeline's spacing: 2 plays twice as fast.
	Speed float64
	// Stderr receives the hooks' own stderr (default: discarded).
	Stderr io.Writer
	// Progress is called after each event (may be nil).
	Progress func(n, total int)
}

// RegistryPath is the session registry of a scratch project.
func RegistryPath(dir string) string { return filepath.Join(dir, ".replay", "sessions.json") }

// Play runs the events through opt.Exe's hook in the order of At (events
// at the same time keep their order), each when its time, divided by
// opt.Speed, has come — or at once when the previous hook ran late. It
// returns when every event is played, at the first hook that fails, or
// when ctx ends (nil then).
func Play(ctx context.Context, opt Options, events []Event) error {
	if opt.Speed <= 0 {
		opt.Speed = 1
	}
	if opt.Stderr == nil {
		opt.Stderr = io.Discard
	}
	if opt.Registry == "" {
		opt.Registry = RegistryPath(opt.Dir)
	}
	dir, err := filepath.Abs(opt.Dir)
	if err != nil {
		return err
	}
	evs := append([]Event(nil), events...)
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].At < evs[j].At })
	start := time.Now()
	for n, ev := range evs {
		wait := time.Until(start.Add(time.Duration(float64(ev.At) / opt.Speed)))
		if !sleep(ctx, wait) {
			return nil
		}
		if ev.Before != nil {
			if err := ev.Before(); err != nil {
				return fmt.Errorf("%s: %w", ev.Session, err)
			}
		}
		pid := ev.PID
		if pid == 0 {
			pid = os.Getpid()
		}
		if err := runHook(ctx, opt, dir, hookEnv(dir, opt.Registry, pid), ev.Payload); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("%s: %w", ev.Session, err)
		}
		if opt.Progress != nil {
			opt.Progress(n+1, len(evs))
		}
	}
	return nil
}

func runHook(ctx context.Context, opt Options, dir string, env []string, payload []byte) error {
	var p struct {
		Cwd string `json:"cwd"`
	}
	_ = json.Unmarshal(payload, &p)
	cmd := exec.CommandContext(ctx, opt.Exe, "hook")
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Stdout = io.Discard
	cmd.Stderr = opt.Stderr
	cmd.Env = env
	cmd.Dir = dir
	if p.Cwd != "" && filepath.IsAbs(p.Cwd) && strings.HasPrefix(filepath.Clean(p.Cwd), dir) {
		if fi, err := os.Stat(p.Cwd); err == nil && fi.IsDir() {
			cmd.Dir = p.Cwd
		}
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("spcstr hook: %w", err)
	}
	return nil
}

// hookEnv is the environment of each hook: the caller's, minus anything
// that would send events elsewhere, plus the scratch project and registry.
func hookEnv(dir, registry string, claudePID int) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CLAUDE") || strings.HasPrefix(k, "SPCSTR_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"CLAUDE_PROJECT_DIR="+dir,
		"SPCSTR_REGISTRY="+registry,
		"CLAUDE_PID="+strconv.Itoa(claudePID),
		// Gates decide but enforce nothing, and act on nothing outside
		// the hook (no bell, no notify or advisor command).
		"SPCSTR_DRY_RUN=1",
		"SPCSTR_REPLAY=1",
	)
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Recorded is a session read back from a project's logs.
type Recorded struct {
	ID string
	// Events are its hook payloads in time order, At from its first.
	Events []Event
	// Branch is the branch state.json recorded ("" when unknown).
	Branch string
}

// ErrNoSession is returned when no recorded session matches an id.
var ErrNoSession = errors.New("no recorded session")

// Load reads the session id (or a unique prefix of one) back from the
// event logs of the project at l: every payload it logged, in time order,
// with the project's root in them replaced by scratch (the folder it will
// be played into), and gaps longer than maxGap shortened to maxGap (0:
// kept as recorded).
func Load(l state.Layout, id, scratch string, maxGap time.Duration) (Recorded, error) {
	full, err := l.FindSession(id)
	if err != nil {
		return Recorded{}, err
	}
	rec := Recorded{ID: full}
	if s, err := l.Load(full); err == nil {
		rec.Branch = s.Branch
	}
	type entry struct {
		at      time.Time
		seq     int
		payload []byte
	}
	var entries []entry
	needle := []byte(`"session_id":` + strconv.Quote(full))
	files, err := logs.EventLogs(l.LogsDir())
	if err != nil {
		return rec, err
	}
	for _, path := range files {
		mark := len(entries)
		err := logs.Stream(path, func() { entries = entries[:mark] }, func(raw []byte) error {
			if !bytes.Contains(raw, needle) {
				return nil
			}
			e, ok := logs.ReadHead(raw)
			if !ok || e.SessionID != full || len(e.Input) == 0 || e.Input[0] != '{' || !json.Valid(e.Input) {
				return nil
			}
			entries = append(entries, entry{at: e.Timestamp, seq: len(entries), payload: append([]byte(nil), e.Input...)})
			return nil
		})
		if err != nil {
			return rec, fmt.Errorf("read %s: %w", filepath.Base(path), err)
		}
	}
	if len(entries) == 0 {
		return rec, fmt.Errorf("%w %s in the logs of %s", ErrNoSession, full, l.Root)
	}
	sort.SliceStable(entries, func(i, j int) bool {
		if !entries[i].at.Equal(entries[j].at) {
			return entries[i].at.Before(entries[j].at)
		}
		return entries[i].seq < entries[j].seq
	})
	from, to := jsonInner(filepath.Clean(l.Root)), jsonInner(scratch)
	var at time.Duration
	for i, e := range entries {
		if i > 0 {
			gap := e.at.Sub(entries[i-1].at)
			if gap < 0 {
				gap = 0
			}
			if maxGap > 0 && gap > maxGap {
				gap = maxGap
			}
			at += gap
		}
		p := e.payload
		if scratch != "" {
			p = bytes.ReplaceAll(p, []byte(from), []byte(to))
		}
		rec.Events = append(rec.Events, Event{At: at, Session: full, Payload: p})
	}
	return rec, nil
}

// PolicyFiles are the files, relative to a project's root, that decide
// what its gates do: CopyPolicy copies them into a scratch copy so that
// the replayed session's requirements, feedback loop and strategies run
// again (in dry-run).
var PolicyFiles = []string{
	filepath.Join(".spcstr", "config.yaml"),
	filepath.Join(".claude", "requirements.yaml"),
	filepath.Join(".claude", "requirements.local.yaml"),
	filepath.Join(".claude", "config", "orchestration-limits.yaml"),
}

// CopyPolicy copies the PolicyFiles that exist in the project at from into
// the scratch project at to (regular files only, each at most
// safefs.MaxConfigBytes), and returns the ones copied.
func CopyPolicy(from, to string) ([]string, error) {
	var copied []string
	for _, rel := range PolicyFiles {
		data, err := safefs.ReadFile(filepath.Join(from, rel), safefs.MaxConfigBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return copied, fmt.Errorf("copy %s: %w", rel, err)
		}
		dst := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return copied, err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return copied, err
		}
		copied = append(copied, rel)
	}
	return copied, nil
}

// Setup makes dir a scratch project to replay into: .spcstr/, and a
// minimal .git whose HEAD is branch (when it is a plain branch name), so
// that the replayed session shows its branch. It runs no git.
func Setup(dir, branch string) error {
	if err := os.MkdirAll(filepath.Join(dir, ".spcstr"), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(RegistryPath(dir)), 0o755); err != nil {
		return err
	}
	if branch == "" || !plainBranch(branch) {
		branch = "main"
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(dir, ".git", "refs", "heads"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/"+branch+"\n"), 0o644)
}

func plainBranch(b string) bool {
	if strings.HasPrefix(b, "/") || strings.Contains(b, "..") || len(b) > 200 {
		return false
	}
	for _, r := range b {
		if !(r == '/' || r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// jsonInner is s as it appears inside a JSON string.
func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
