// Package recorder is `spcstr hook`: it reads one Claude Code hook event on
// stdin, applies it to the session's state.json, appends it to the event's
// log, asks the gates (requirements, feedback loop, strategies) whether to
// answer, and prints at most one JSON answer. It fails open: whatever goes
// wrong inside spcstr, the hook exits 0 and the user's session goes on
// (../shared/SPEC.md §8).
package recorder

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/registry"
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
func Run(ctx context.Context, opt Options) (code int) {
	opt.defaults()
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(opt.Stderr, "spcstr hook: internal error (ignored, session continues): %v\n%s", r, debug.Stack())
			code = 0
		}
	}()
	r := &run{opt: opt, start: opt.Now()}
	r.handle(ctx)
	return 0
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
	opt    Options
	start  time.Time
	now    time.Time
	layout state.Layout
	cfg    *config.Config
	ev     *hookio.Event
	name   string
	raw    []byte
	errs   []string
	// touch asks register to refresh the registry's last_active.
	touch bool
}

func (r *run) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.errs = append(r.errs, msg)
	fmt.Fprintf(r.opt.Stderr, "spcstr hook: %s\n", msg)
}

func (r *run) handle(ctx context.Context) {
	r.now = r.start.UTC()
	raw, readErr := io.ReadAll(io.LimitReader(r.opt.Stdin, hookio.MaxPayloadBytes+1))
	r.raw = raw
	ev, decErr := hookio.Decode(raw)
	if decErr == nil {
		r.ev = ev
	}

	cwd := ""
	if ev != nil {
		cwd = ev.Cwd
	}
	r.layout = state.Layout{Root: state.FindRoot(r.opt.Getenv("CLAUDE_PROJECT_DIR"), cwd)}
	if !r.layout.Exists() {
		if r.opt.Getenv("SPCSTR_AUTO_INIT") != "1" {
			return // not a spcstr project: do nothing
		}
		if err := os.MkdirAll(r.layout.LogsDir(), 0o755); err != nil {
			r.fail("auto-init %s: %v", r.layout.Dir(), err)
			return
		}
	}
	if err := os.MkdirAll(r.layout.LogsDir(), 0o755); err != nil {
		r.fail("create %s: %v", r.layout.LogsDir(), err)
		return
	}
	cfg, err := config.Load(r.layout.ConfigPath())
	if err != nil {
		r.fail("%v (using defaults)", err)
	}
	r.cfg = cfg

	switch {
	case readErr != nil:
		r.reject(ctx, fmt.Sprintf("reading stdin: %v", readErr))
		return
	case len(raw) > hookio.MaxPayloadBytes:
		r.reject(ctx, "payload larger than 256 MiB")
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

	answer, records, created := r.record(ctx)
	r.register(ctx, created)
	out := answer.Encode()
	r.appendLog(ctx, out, len(records))
	r.appendDecisions(ctx, records)
	if len(out) > 0 {
		if _, err := r.opt.Stdout.Write(out); err != nil {
			fmt.Fprintf(r.opt.Stderr, "spcstr hook: write answer: %v\n", err)
		}
	}
}

// record applies the event to state and runs the gates, all under the
// session's lock. It returns the merged answer and the decision records.
func (r *run) record(ctx context.Context) (*hookio.Answer, []gate.Record, bool) {
	ev := r.ev
	var (
		answer  = &hookio.Answer{}
		records []gate.Record
		created bool
	)
	ap := &applier{ev: ev, name: r.name, now: r.now, root: r.layout.Root}
	opt := state.UpdateOptions{Keep: r.cfg.State.Keep, Lazy: state.AllSections &^ sectionsFor(r.name, ev)}
	_, err := r.layout.Update(ctx, ev.SessionID, r.now, opt, func(s *state.Session, fresh bool) error {
		created = fresh
		switch {
		case fresh || r.name == hookio.SessionStart || r.name == hookio.SessionEnd:
			s.RegistryAt = r.now // register() writes the registry anyway
		case r.now.Sub(s.RegistryAt) >= registry.RefreshInterval:
			s.RegistryAt, r.touch = r.now, true
		}
		if b := gitrepo.CachedBranch(r.layout.Root, &s.GitHead); b != "" {
			s.Branch = b
		}
		for _, msg := range r.errs { // config problems found before the lock
			s.Errors = append(s.Errors, state.Error{Timestamp: r.now, Type: state.ErrorSpcstr, Message: msg})
		}
		ap.apply(s)
		if err := transcript.Update(s.TranscriptPath, &s.Transcript, &s.Tokens); err != nil {
			s.Errors = append(s.Errors, state.Error{Timestamp: r.now, Type: state.ErrorSpcstr, Message: err.Error()})
		}
		s.Tokens.ContextWindow = transcript.ContextWindow(s.Model, r.cfg.ContextWindow)
		answer, records = r.runGates(ctx, s)
		return nil
	})
	if err != nil {
		r.fail("update state of session %s: %v", ev.SessionID, err)
	}
	return answer, records, created
}

// runGates asks every gate about the event, applies the Stop-block guard
// and dry-run, and merges the verdicts into one answer.
func (r *run) runGates(ctx context.Context, s *state.Session) (*hookio.Answer, []gate.Record) {
	gates := r.opt.Gates(gate.Setup{Layout: r.layout, Config: r.cfg, Getenv: r.opt.Getenv})
	if len(gates) == 0 {
		return &hookio.Answer{}, nil
	}
	if readsHistory(gates) {
		if err := s.Decode(state.AllSections); err != nil {
			s.Errors = append(s.Errors, state.Error{Timestamp: r.now, Type: state.ErrorSpcstr, Message: err.Error()})
		}
	}
	dry := r.cfg.DryRun || r.opt.Getenv("SPCSTR_DRY_RUN") == "1"
	in := &gate.Input{Event: r.ev, Name: r.name, Session: s, Layout: r.layout, Now: r.now, Getenv: r.opt.Getenv}
	reqID := requestID()
	var all []gate.Verdict
	var records []gate.Record
	for _, g := range gates {
		// Durations use the injected clock too: mixing it with the wall
		// clock gives nonsense under a fixed clock (tests, replays).
		t0 := r.opt.Now()
		verdicts, err := evaluate(ctx, g, in)
		dur := float64(r.opt.Now().Sub(t0).Microseconds()) / 1000
		if err != nil {
			msg := fmt.Sprintf("%s failed: %v", g.Name(), err)
			s.Errors = append(s.Errors, state.Error{Timestamp: r.now, Type: state.ErrorSpcstr, Message: msg})
			fmt.Fprintf(r.opt.Stderr, "spcstr hook: %s\n", msg)
			rec := gate.Record{Source: g.Name(), Decision: gate.Allow, Reason: "gate error, failing open", Error: err.Error()}
			if g.FailClosed() && gate.CanBlock(r.name) {
				dec := gate.Block
				if r.name == hookio.PreToolUse {
					dec = gate.Deny
				}
				verdicts = []gate.Verdict{{Source: g.Name(), Decision: dec, Reason: "gate error, fail_mode closed",
					Message: fmt.Sprintf("spcstr: %s could not decide (%v) and its fail_mode is closed.", g.Name(), err)}}
				rec.Decision, rec.Reason = dec, "gate error, fail_mode closed"
			}
			rec.DurationMS = dur
			records = append(records, rec)
		}
		if dry {
			for i := range verdicts {
				verdicts[i].DryRun = true
			}
		}
		verdicts = r.guardStops(s, g.Name(), verdicts)
		for _, v := range verdicts {
			if v.Decision != "" && err == nil {
				src := v.Source
				if src == "" {
					src = g.Name() // a verdict speaks for its gate unless it names a strategy
				}
				records = append(records, gate.Record{Source: src, Decision: v.Decision, Reason: v.Reason, Message: v.Message, DurationMS: dur, DryRun: v.DryRun})
			}
		}
		all = append(all, verdicts...)
	}
	for i := range records {
		records[i].RequestID, records[i].SessionID, records[i].Timestamp = reqID, s.SessionID, r.now
		records[i].Hook = r.name
		records[i].DryRun = records[i].DryRun || dry
		if records[i].Source == "" {
			records[i].Source = "unknown"
		}
	}
	// Dry-run (global, or a verdict's own): log everything, enforce
	// nothing: keep context and messages, drop the decision.
	for i := range all {
		if all[i].DryRun && (all[i].Decision == gate.Deny || all[i].Decision == gate.Block) {
			all[i].Decision = ""
		}
	}
	answer := gate.Merge(r.name, all)
	if r.name == hookio.PreToolUse && answer.HookSpecificOutput != nil &&
		answer.HookSpecificOutput.PermissionDecision == hookio.PermissionDeny && hookio.IsSubagentTool(r.ev.ToolName) {
		// The call will not run: it spawns no agent.
		dropAgentCall(s, r.ev.ToolUseID)
	}
	return answer, records
}

// evaluate runs one gate, turning a panic into an error so one broken gate
// cannot take the hook down.
func evaluate(ctx context.Context, g gate.Gate, in *gate.Input) (v []gate.Verdict, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return g.Evaluate(ctx, in)
}

// maxStopBlocks is how many Stops in a row a gate may block without progress
// (../shared/SPEC.md §8).
const maxStopBlocks = 3

// guardStops lets a Stop through (with a message saying what is unmet) once
// a gate has blocked maxStopBlocks Stops in a row without any tool call in
// between. Progress, or a Stop the gate allows, resets its count.
func (r *run) guardStops(s *state.Session, source string, verdicts []gate.Verdict) []gate.Verdict {
	if r.name != hookio.Stop && r.name != hookio.SubagentStop {
		return verdicts
	}
	key := source + "/" + r.name
	gs := s.Gates[key]
	tools := s.ToolCalls()
	blocking := false
	for _, v := range verdicts {
		if v.Decision == gate.Block && !v.DryRun {
			blocking = true // a dry-run block is not enforced, so not counted
		}
	}
	if s.Gates == nil {
		s.Gates = map[string]state.GateState{}
	}
	if !blocking {
		if gs.StopBlocks != 0 {
			delete(s.Gates, key)
		}
		return verdicts
	}
	if tools > gs.ToolsAtBlock {
		gs.StopBlocks = 0
	}
	if gs.StopBlocks >= maxStopBlocks {
		out := make([]gate.Verdict, 0, len(verdicts))
		for _, v := range verdicts {
			if v.Decision == gate.Block && !v.DryRun {
				v.Decision = gate.Allow
				v.Escalated = true
				v.Reason = "escalated:" + v.Reason
				v.SystemMessage = fmt.Sprintf("spcstr: %s blocked %d stops in a row without progress, so this stop is allowed. Still unmet:\n%s",
					source, maxStopBlocks, v.Message)
			}
			out = append(out, v)
		}
		gs.ToolsAtBlock = tools
		s.Gates[key] = gs
		return out
	}
	gs.StopBlocks++
	gs.ToolsAtBlock = tools
	s.Gates[key] = gs
	return verdicts
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

// register keeps the session registry current: SessionStart (or the first
// event of a session spcstr had not seen) registers, SessionEnd removes,
// and other events refresh last_active at most once a minute (the state
// remembers when), so most hooks do not touch the registry at all.
func (r *run) register(ctx context.Context, created bool) {
	path := registry.Path(r.opt.Getenv)
	var err error
	switch {
	case r.name == hookio.SessionEnd:
		err = registry.Remove(ctx, path, r.ev.SessionID)
	case r.touch:
		err = registry.Touch(ctx, path, r.ev.SessionID, registry.Now(r.now))
	case r.name == hookio.SessionStart || created:
		ppid := os.Getppid()
		if p := r.opt.Getenv("CLAUDE_PID"); p != "" {
			fmt.Sscanf(p, "%d", &ppid)
		}
		branch := ""
		if repo, ok := gitrepo.Find(r.layout.Root); ok {
			branch = repo.Branch()
		}
		now := registry.Now(r.now)
		err = registry.Register(ctx, path, r.ev.SessionID, registry.Entry{
			PID: os.Getpid(), PPID: ppid, ProjectDir: r.layout.Root, Branch: branch,
			StartedAt: now, LastActive: now,
		}, r.opt.Alive)
	}
	if err != nil {
		fmt.Fprintf(r.opt.Stderr, "spcstr hook: session registry: %v\n", err)
	}
}

// appendLog writes the event to .spcstr/logs/<event>.json.
func (r *run) appendLog(ctx context.Context, answer []byte, decisions int) {
	input, truncated := logs.CapPayload(r.raw, r.cfg.Logs.MaxPayloadBytes)
	entry := logs.Entry{
		Timestamp: r.now,
		SessionID: r.ev.SessionID,
		Event:     r.name,
		Input:     input,
		Truncated: truncated,
		Outcome: &logs.Outcome{
			DurationMS: float64(r.opt.Now().Sub(r.start).Microseconds()) / 1000,
			Decisions:  decisions,
			Error:      strings.Join(r.errs, "; "),
		},
	}
	if len(answer) > 0 {
		entry.Outcome.Answer = json.RawMessage(strings.TrimSpace(string(answer)))
	}
	data, err := entry.Encode()
	if err != nil {
		r.fail("encode log entry: %v", err)
		return
	}
	path := r.layout.LogPath(EventLogName(r.name))
	if err := logs.Append(ctx, path, data, logs.Options{MaxBytes: r.cfg.Logs.MaxBytes}); err != nil {
		r.fail("append %s: %v", path, err)
		return
	}
	syncFile(path)
}

// syncFile flushes a log to disk: the hook's one fsync. The event log is
// the durable record; state.json, rebuilt from the logs by spcstr rebuild,
// is written without one.
func syncFile(path string) {
	if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
		_ = f.Sync()
		_ = f.Close()
	}
}

func (r *run) appendDecisions(ctx context.Context, records []gate.Record) {
	path := r.layout.LogPath(gate.DecisionsLog)
	for _, rec := range records {
		data, err := json.Marshal(rec)
		if err != nil {
			continue
		}
		if err := logs.Append(ctx, path, data, logs.Options{MaxBytes: r.cfg.Logs.MaxBytes}); err != nil {
			r.fail("append %s: %v", path, err)
			return
		}
	}
}

// RejectedLog is the snake_case name of the log of payloads spcstr refused.
const RejectedLog = "rejected"

// EventLogName is the log name for an event: its snake_case name, except
// that an (unknown) event named like one of spcstr's own logs (decisions,
// rejected, repairs) is logged as event_<name> so it cannot mix with them.
func EventLogName(name string) string {
	snake := hookio.SnakeName(name)
	switch snake {
	case gate.DecisionsLog, RejectedLog, logs.RepairsName:
		return "event_" + snake
	}
	return snake
}

// reject notes an unusable payload in rejected.json and writes nothing else.
func (r *run) reject(ctx context.Context, reason string) {
	input, truncated := logs.CapPayload(r.raw, r.cfg.Logs.MaxPayloadBytes)
	rec := map[string]any{
		"timestamp": r.now,
		"reason":    reason,
		"input":     input,
	}
	if len(truncated) > 0 {
		rec["truncated"] = truncated
	}
	if r.ev != nil {
		rec["session_id"] = state.Truncate(r.ev.SessionID, 300)
		rec["event"] = state.Truncate(r.ev.HookEventName, 100)
	}
	if r.opt.Event != "" {
		rec["event_arg"] = state.Truncate(r.opt.Event, 100)
	}
	data, err := json.Marshal(rec)
	if err == nil {
		err = logs.Append(ctx, r.layout.LogPath(RejectedLog), data, logs.Options{MaxBytes: r.cfg.Logs.MaxBytes})
	}
	if err != nil {
		fmt.Fprintf(r.opt.Stderr, "spcstr hook: could not record rejected payload: %v\n", err)
	}
	fmt.Fprintf(r.opt.Stderr, "spcstr hook: payload rejected: %s\n", reason)
}

// requestID names one hook invocation in decisions.json. math/rand/v2 is
// seeded from the OS per process; crypto/rand would add its package init to
// every hook call for no benefit here.
func requestID() string {
	return fmt.Sprintf("%016x", rand.Uint64())
}
