// Package recorder is `spcstr hook`: it reads one Claude Code hook event on
// stdin, applies it to the session's state.json, appends it to the event's
// log, asks the gates (requirements, feedback loop, strategies) whether to
// answer, and prints at most one JSON answer. It fails open: whatever goes
// wrong inside spcstr, the hook exits 0 and the user's session goes on
// (docs/answers.md).
package recorder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"runtime/debug"
	"time"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/observe"
	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/internal/transcript"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// Options are the recorder's inputs. Zero values mean the process's own
// stdin, stdout, stderr, environment and clock.
type Options struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Event is the optional EVENT argument (either spelling); the payload's
	// hook_event_name wins when present.
	Event  string
	Getenv func(string) string
	Now    func() time.Time
	// Gates builds the gates for a project; nil means DefaultGates.
	Gates func(gate.Setup) []gate.Gate
	// Alive reports whether a pid is running (registry pruning).
	Alive func(pid int) bool
}

// Run handles one hook invocation. It always returns exit code 0: spcstr's
// own failures are reported on stderr and in the session's errors, never to
// Claude Code as a failure.
//
// Both binaries that record (spcstr hook and spcstr-hook) call Run, so the
// last lines of defence live here: a soft memory limit for the Go runtime
// (MemoryLimit), and a recover that turns a panic into one line on stderr
// and a record in rejected.json (or the session's errors), never a trace.
func Run(ctx context.Context, opt Options) (code int) {
	opt.defaults()
	// Every byte the hook prints on stderr can quote a committed file (a
	// config parse error, a pattern, a path): one sanitiser for all of it.
	errw := termtext.NewWriter(opt.Stderr)
	defer errw.Flush()
	opt.Stderr = errw
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		// Only when nobody (GOMEMLIMIT, a test) chose a limit already.
		debug.SetMemoryLimit(MemoryLimit)
	}
	r := &run{opt: opt, start: opt.Now(), began: time.Now()}
	defer func() {
		if p := recover(); p != nil {
			r.recovered(ctx, p)
			code = 0
		}
	}()
	r.handle(ctx)
	return 0
}

// MemoryLimit is the Go runtime's soft memory limit in a hook process
// (debug.SetMemoryLimit): the garbage collector works harder as the heap
// nears it. The decoders' own bounds keep a hook far below it; it is the
// last line, not the first.
const MemoryLimit = 384 << 20

// recovered reports a panic: one sanitised line on stderr, no stack, and
// the event kept in rejected.json when it was not logged yet. A second
// panic while recording it is swallowed: the hook still exits 0.
func (r *run) recovered(ctx context.Context, p any) {
	defer func() { _ = recover() }()
	msg := termtext.Line(fmt.Sprintf("internal error: %v", p))
	fmt.Fprintf(r.opt.Stderr, "spcstr hook: %s (ignored, session continues)\n", termtext.Cut(msg, 500))
	if r.logged || r.layout.Root == "" || r.cfg == nil {
		return
	}
	r.reject(ctx, termtext.Cut(msg, 500))
}

func (o *Options) defaults() {
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Gates == nil {
		o.Gates = DefaultGates
	}
	if o.Alive == nil {
		o.Alive = registry.Alive
	}
}

type run struct {
	opt   Options
	start time.Time
	// began is when the hook started by the wall clock (start is the
	// injected clock's): the gates' budget counts from it.
	began  time.Time
	now    time.Time
	layout state.Layout
	cfg    *config.Config
	ev     *hookio.Event
	name   string
	raw    []byte
	errs   []string
	// obs collects the hook's observability events (nil: turned off).
	obs *observe.Request
	// touch is set for the session's first event of a minute: the hook
	// that refreshes the registry's last_active.
	touch bool
	// startedAt and branch are the session's creation time and branch
	// (from its state), for the registry entry.
	startedAt time.Time
	branch    string
	// transcript is the session's transcript path (from its state);
	// title its title (for the dashboard's card).
	transcript string
	title      string
	// logged is set once the event is in its log; out is the answer
	// printed on stdout; flush is the log's fsync, flushed closed once
	// it is done.
	logged bool
	// dirsErr is set when .spcstr/logs could not be made ready.
	dirsErr error
	// cfgErr is why config.yaml could not be used.
	cfgErr  error
	out     []byte
	flush   *logs.Flush
	flushed chan struct{}
}

func (r *run) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.errs = append(r.errs, msg)
	fmt.Fprintf(r.opt.Stderr, "spcstr hook: %s\n", msg)
}

func (r *run) handle(ctx context.Context) {
	r.now = r.start.UTC()
	raw, readErr := hookio.ReadPayload(r.opt.Stdin, stdinTimeout(r.opt.Getenv))
	r.raw = raw
	ev, decErr := hookio.Decode(raw)
	if decErr == nil {
		r.ev = ev
		if errors.Is(readErr, hookio.ErrStdinTimeout) {
			// What arrived is a whole payload: record it, and say why
			// the hook took so long.
			r.errs = append(r.errs, readErr.Error())
			readErr = nil
		}
	}

	cwd := ""
	if ev != nil {
		cwd = ev.Cwd
	}
	r.layout = state.Layout{Root: state.FindRoot(r.opt.Getenv("CLAUDE_PROJECT_DIR"), cwd)}
	if err := prepareDirs(r.layout, r.opt.Getenv("SPCSTR_AUTO_INIT") == "1"); err != nil {
		if err == errNotProject {
			return
		}
		// .spcstr/ exists but is unusable: the gates still answer
		// (their fail modes decide), from what can be read.
		r.fail("%v", err)
		r.dirsErr = err
	}
	cfg, err := config.Load(r.layout.ConfigPath())
	if err != nil {
		r.fail("%v (using defaults)", err)
		r.cfgErr = err
	}
	r.cfg = cfg

	switch {
	case readErr != nil:
		r.reject(ctx, fmt.Sprintf("reading stdin: %v", readErr))
		return
	case len(raw) > hookio.MaxPayloadBytes:
		r.reject(ctx, fmt.Sprintf("payload larger than %d MiB", hookio.MaxPayloadBytes>>20))
		return
	case decErr != nil:
		r.reject(ctx, fmt.Sprintf("not a hook payload: %v", decErr))
		return
	}
	r.name = ev.Name(r.opt.Event)
	if r.name == "" {
		r.reject(ctx, "no usable event name (hook_event_name missing or invalid)")
		return
	}
	if !state.ValidSessionID(ev.SessionID) {
		if ev.SessionID == "" {
			r.reject(ctx, "missing session_id")
		} else {
			r.reject(ctx, "invalid session_id (not usable as a folder name)")
		}
		return
	}

	r.startObserve()
	// The log's fsync runs beside the rest of the hook (the state write,
	// the registry, observability); the hook returns once it is done.
	defer r.waitFlush()
	t := r.opt.Now()
	answer, records, created := r.record(ctx)
	r.obs.Phase("state_and_gates", t)
	// Logs torn by hooks killed mid-append are mended by every hook, once
	// its own event is logged: the mending overlaps the log's fsync.
	r.repairLogs(ctx)
	t = r.opt.Now()
	if r.touch {
		// Temp files of hooks killed mid-write, at most once a minute.
		if _, err := r.layout.RemoveStaleTemps(r.ev.SessionID, time.Now()); err != nil {
			fmt.Fprintf(r.opt.Stderr, "spcstr hook: remove leftover temp files: %v\n", err)
		}
	}
	r.register(ctx, created)
	r.obs.Phase("registry", t)
	if r.name == hookio.SessionEnd && r.cfg.ArchiveTranscripts {
		t = r.opt.Now()
		if err := archiveTranscripts(r.layout, r.ev.SessionID, r.transcript, r.now); err != nil {
			fmt.Fprintf(r.opt.Stderr, "spcstr hook: archive transcripts: %v\n", err)
			r.errs = append(r.errs, "archive transcripts: "+err.Error())
		}
		r.obs.Phase("archive", t)
	}
	// A PermissionRequest no gate decided waits here for the dashboard,
	// when one is open: the event is logged and no lock is held. Its
	// answer is recorded as every answer is (answers.json, decisions).
	t = r.opt.Now()
	if ans, recs := r.askDashboard(ctx, answer); ans != nil {
		r.out = ans.Encode()
		r.appendAnswer(ctx, ans, len(recs), r.opt.Now().Sub(t), nil, nil)
		r.appendDecisions(ctx, recs)
		records = append(records, recs...)
	}
	if out := r.out; len(out) > 0 {
		if _, err := r.opt.Stdout.Write(out); err != nil {
			fmt.Fprintf(r.opt.Stderr, "spcstr hook: write answer: %v\n", err)
		}
	}
	r.finishObserve(len(records), len(r.out) > 0)
}

// record runs the hook's work in the order that keeps every event and
// never holds the session's lock while a gate runs (docs/answers.md):
//
//  1. the event is appended to its log, before any gate runs, so that a
//     hook killed by Claude Code's timeout still leaves its record;
//  2. the gates decide on the session's state read without the lock (a
//     complete state.json, written whole) with the event applied, so that
//     parallel hooks of one session (parallel tool calls, background
//     agents) wait for nobody's gate;
//  3. the answer and the gates' decisions are appended as records of their
//     own (answers.json, decisions.json);
//  4. under the session's lock the event is applied to the current state,
//     with what the gates changed in it (their errors, notes and Stop
//     counts), and state.json is written.
//
// It returns the answer, the decision records (appended already) and
// whether the session is new.
func (r *run) record(ctx context.Context) (*hookio.Answer, []gate.Record, bool) {
	ev := r.ev
	gates := gate.Active(r.opt.Gates(gate.Setup{Layout: r.layout, Config: r.cfg, ConfigErr: r.cfgErr, Getenv: r.opt.Getenv}))
	r.logEvent(ctx)
	var (
		answer  = &hookio.Answer{}
		records []gate.Record
		created bool
		delta   *gateDelta
	)
	var unavailable error
	t := r.opt.Now()
	if len(gates) > 0 {
		var s *state.Session
		s, unavailable = r.snapshot(ctx)
		if r.dirsErr != nil {
			unavailable = r.dirsErr
		}
		// The gates share a budget that ends inside Claude Code's timeout
		// for the event (hookio.GateBudget): a gate still deciding then
		// has failed, and its fail mode answers while Claude Code still
		// listens.
		gctx, cancel := context.WithDeadline(ctx, r.began.Add(hookio.GateBudget(r.name)))
		answer, records, delta = r.runGates(gctx, gates, s, unavailable)
		cancel()
		r.obs.Phase("gates", t)
	}
	var stateErr error
	if r.dirsErr == nil {
		ap := &applier{ev: ev, name: r.name, now: r.now, root: r.layout.Root}
		opt := state.UpdateOptions{Keep: r.cfg.State.Keep, Lazy: state.AllSections &^ sectionsFor(r.name, ev)}
		if delta.touches() {
			opt.Lazy &^= delta.sections()
		}
		ran := false
		_, stateErr = r.layout.Update(ctx, ev.SessionID, r.now, opt, func(s *state.Session, fresh bool) error {
			ran, created = true, fresh
			r.apply(ap, s)
			delta.applyTo(s)
			return nil
		})
		if stateErr != nil {
			r.fail("update state of session %s: %v", ev.SessionID, stateErr)
			if !ran && len(gates) > 0 && unavailable == nil {
				// The lock not taken in time, the session's folder
				// unusable: what the gates decided cannot be kept (their
				// Stop counts, notes), so the answer does not stand on it.
				// Each gate that answers this event fails as its
				// fail_mode says, never silently.
				unavailable = stateErr
				answer, records, _ = r.runGates(ctx, gates, &state.Session{SessionID: ev.SessionID}, stateErr)
			}
		}
	}
	r.out = answer.Encode()
	if len(r.out) > 0 || len(records) > 0 || unavailable != nil || stateErr != nil {
		// Only an event something was decided or went wrong for has an
		// answer record: most events' gates have nothing to say.
		r.appendAnswer(ctx, answer, len(records), r.opt.Now().Sub(t), unavailable, stateErr)
		r.appendDecisions(ctx, records)
	}
	return answer, records, created
}

// apply applies the event to the session's state s: the event itself, the
// branch, the terminal, the transcript's news, and the errors met so far.
func (r *run) apply(ap *applier, s *state.Session) {
	if b := gitrepo.CachedBranch(r.layout.Root, &s.GitHead); b != "" {
		s.Branch = b
	}
	for _, msg := range r.errs { // problems found before the lock
		s.Errors = append(s.Errors, state.Error{Timestamp: r.now, Type: state.ErrorSpcstr, Message: msg})
	}
	ap.apply(s)
	if r.name == hookio.SessionStart && r.opt.Getenv("SPCSTR_REPLAY") != "1" {
		// Where the session runs: once per start (a resume may be
		// in another pane), never on the tool calls' path.
		s.Terminal = terminalFromEnv(r.opt.Getenv)
	}
	if r.name == hookio.SessionStart || s.ClaudePID == 0 {
		// Its Claude Code process, for a dashboard that finds no registry
		// entry (a resume runs in a new process and starts again).
		s.ClaudePID = r.claudePID()
	}
	if n := len(s.Activity); n > 0 && s.Activity[n-1].Count == 1 {
		r.touch = true // the first event of this minute
	} else if n == 1 && s.Activity[0].Count == 2 {
		r.touch = true // the session's second event: confirm SessionStart's registration
	}
	r.startedAt, r.branch, r.transcript, r.title = s.CreatedAt, s.Branch, s.TranscriptPath, s.Title
	hint := transcript.Hint{Event: r.name, AgentID: r.ev.AgentID, AgentPath: r.ev.AgentTranscriptPath}
	if err := transcript.ReadSession(s, hint); err != nil {
		s.Errors = append(s.Errors, state.Error{Timestamp: r.now, Type: state.ErrorSpcstr, Message: err.Error()})
	}
	s.Tokens.ContextWindow = transcript.ContextWindow(s.Model, r.cfg.ContextWindow)
	r.inheritFork(s)
}

// snapshot is the session's state as the gates see it: state.json read
// without the lock (it is always replaced whole), with the event applied.
// Nothing persists it. unavailable is why it could not be read (a stand-in
// is returned then): the gates fail as their fail modes say.
func (r *run) snapshot(_ context.Context) (*state.Session, error) {
	id := r.ev.SessionID
	s, err := r.layout.Load(id)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		s = state.New(id, r.layout.Root, r.now)
	default:
		return &state.Session{SessionID: id}, err
	}
	s.SessionID = id
	if s.CreatedAt.IsZero() {
		s.CreatedAt = r.now
	}
	if s.ProjectDir == "" {
		s.ProjectDir = r.layout.Root
	}
	ap := &applier{ev: r.ev, name: r.name, now: r.now, root: r.layout.Root}
	keep := r.touch
	r.apply(ap, s)
	r.touch = keep // the locked update decides
	return s, nil
}

// runGates asks gate for the one answer to the event, on s (the snapshot,
// or a stand-in when unavailable says why the session's state could not be
// had: the gates then fail as their fail modes say). It returns the answer,
// the decision records and what the gates changed in s.
func (r *run) runGates(ctx context.Context, gates []gate.Gate, s *state.Session, unavailable error) (*hookio.Answer, []gate.Record, *gateDelta) {
	before := captureDelta(s)
	// SPCSTR_REPLAY=1: an event played back by spcstr replay or the demo.
	replayed := r.opt.Getenv("SPCSTR_REPLAY") == "1"
	in := &gate.Input{Event: r.ev, Name: r.name, Session: s, Layout: r.layout, Now: r.now, Getenv: r.opt.Getenv, Observe: r.obs,
		Replay: replayed, RunCommands: !replayed, Unavailable: unavailable}
	res := gate.Run(ctx, gates, in, gate.Policy{DryRun: r.cfg.DryRun, Clock: r.opt.Now, StopBlockLimit: r.cfg.StopBlockLimit})
	for _, msg := range res.Failures {
		fmt.Fprintf(r.opt.Stderr, "spcstr hook: %s\n", msg)
	}
	answer := res.Answer
	d := before.since(s)
	if r.name == hookio.PreToolUse && answer.HookSpecificOutput != nil &&
		answer.HookSpecificOutput.PermissionDecision == hookio.PermissionDeny && hookio.IsSubagentTool(r.ev.ToolName) {
		// The call will not run: it spawns no agent.
		d.dropAgent = r.ev.ToolUseID
	}
	return answer, res.Records, d
}

func dropAgentCall(s *state.Session, toolUseID string) {
	if toolUseID == "" {
		return
	}
	for i := range s.AgentsHistory {
		e := s.AgentsHistory[i]
		if e.ToolUseID == toolUseID && e.Running() {
			s.AgentsHistory = append(s.AgentsHistory[:i], s.AgentsHistory[i+1:]...)
			for j, n := range s.Agents {
				if n == e.Name {
					s.Agents = append(s.Agents[:j], s.Agents[j+1:]...)
					break
				}
			}
			return
		}
	}
}
