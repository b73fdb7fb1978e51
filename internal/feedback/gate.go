package feedback

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/internal/observe"
	"github.com/dylan-gluck/spcstr/internal/pathglob"
	"github.com/dylan-gluck/spcstr/state"
)

// CustomEvents are the custom observability event types the loop emits
// (docs/observability.md): a phase_result per result it records.
var CustomEvents = []string{observe.PhaseResult}

// Source is the feedback loop's name in decisions.json.
const Source = "feedback"

// Gates returns the feedback loop's gate for a project: none when the loop
// is not enabled, and a gate that only warns (once per session) when its
// configuration is invalid.
func Gates(setup gate.Setup) []gate.Gate {
	c, err := LoadConfig(setup.Config)
	if err != nil {
		// The section does not decode; its fail_mode may still be read.
		// A fail_mode that is neither open nor closed counts as closed.
		mode, merr := gate.ReadFailMode(setup.Config, "feedback")
		return []gate.Gate{configProblem{err: err, closed: mode == gate.FailClosed || merr != nil}}
	}
	if !c.Enabled {
		return nil
	}
	return []gate.Gate{New(c)}
}

// Gate enforces the feedback loop.
type Gate struct {
	cfg *Config
}

// New returns the gate for a loaded configuration.
func New(c *Config) *Gate { return &Gate{cfg: c} }

// Name implements gate.Gate.
func (g *Gate) Name() string { return Source }

// FailClosed implements gate.Gate: fail_mode closed (default open).
func (g *Gate) FailClosed() bool { return g.cfg.FailMode == gate.FailClosed }

// StopBlockLimit implements gate.StopLimiter.
func (g *Gate) StopBlockLimit() int { return g.cfg.StopBlockLimit }

// Declares implements gate.Declarer: the loop decides (may block) at Stop.
func (g *Gate) Declares(in *gate.Input) bool { return in.Name == hookio.Stop }

// Evaluate implements gate.Gate. It reads and writes feedback-loop.json
// only for events that concern the loop: a change to a tracked file, a
// reviewer/test-lead/tester result, a bypass skill, a prompt or session
// start while a loop is active, and Stop.
func (g *Gate) Evaluate(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	ev := in.Event
	switch in.Name {
	case hookio.PostToolUse:
		switch ev.ToolName {
		case "Edit", "Write", "MultiEdit", "NotebookEdit":
			return g.change(ctx, in)
		case "Agent", "Task":
			resp := ev.Response()
			if resp.Background() {
				return nil, nil // its result comes with its SubagentStop
			}
			agent := ev.Input().SubagentType
			if agent == "" {
				agent = resp.AgentType
			}
			return g.result(ctx, in, AgentResult{Agent: agent, AgentID: resp.AgentID, Text: resp.Text()})
		case "Skill":
			return g.bypass(ctx, in, ev.Input().Skill)
		}
	case hookio.PostToolUseFailure:
		if hookio.IsSubagentTool(ev.ToolName) {
			msg := ev.Error
			if msg == "" {
				msg = "tool failed"
			}
			return g.result(ctx, in, AgentResult{Agent: ev.Input().SubagentType, Error: msg})
		}
	case hookio.UserPromptExpansion:
		return g.bypass(ctx, in, ev.CommandName)
	case hookio.SubagentStop:
		agent := ev.AgentType
		if a := in.Session.FindAgent(ev.AgentID); a != nil {
			if !a.Background && a.ToolUseID != "" {
				return nil, nil // foreground: its PostToolUse carries the result
			}
			agent = a.Name
		}
		return g.result(ctx, in, AgentResult{Agent: agent, AgentID: ev.AgentID, Text: ev.LastAssistantMessage})
	case hookio.UserPromptSubmit:
		return g.prompt(ctx, in)
	case hookio.SessionStart:
		if ev.Source == "compact" || ev.Source == "resume" {
			return g.status(in)
		}
	case hookio.Stop:
		return g.stop(ctx, in)
	}
	return nil, nil
}

func (g *Gate) path(in *gate.Input) (string, error) {
	return in.Layout.FeedbackPath(in.Event.SessionID)
}

// exists reports whether the session has a loop file, so that events that
// cannot start a loop skip the lock and the read.
func (g *Gate) exists(in *gate.Input) (string, bool, error) {
	p, err := g.path(in)
	if err != nil {
		return "", false, err
	}
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return p, false, nil
		}
		return p, false, err
	}
	return p, true, nil
}

// update runs a locked read-modify-write of the loop. A corrupt file is set
// aside (jsonfile) and a new loop begins; that is noted in the session.
func (g *Gate) update(ctx context.Context, in *gate.Input, fn func(l *Loop) bool) (*Loop, error) {
	p, err := g.path(in)
	if err != nil {
		return nil, err
	}
	l := NewLoop()
	err = jsonfile.Update(ctx, p, l, func(fresh bool, readErr error) (bool, error) {
		if fresh {
			*l = *NewLoop()
		}
		l.normalize()
		changed := fn(l)
		if readErr != nil {
			in.Session.Errors = append(in.Session.Errors, state.Error{Timestamp: in.Now, Type: state.ErrorSpcstr,
				Message: "feedback loop: " + readErr.Error()})
		}
		return changed, nil
	})
	if err != nil {
		return nil, fmt.Errorf("feedback loop: %w", err)
	}
	return l, nil
}

func (g *Gate) limits(in *gate.Input) (Limits, []gate.Verdict) {
	lim, err := LoadLimits(in.Layout.Root, g.cfg.LimitsFile)
	if err != nil && in.Session.Note("feedback:limits-error") {
		return lim, []gate.Verdict{{Source: Source,
			SystemMessage: fmt.Sprintf("spcstr feedback loop: %v; using the default limits.", err)}}
	}
	return lim, nil
}

// change tracks an edit of a file that a rule routes to a domain. Edits by
// the loop's own reviewers, test leads and testers (who may write tests) do
// not count as changes.
func (g *Gate) change(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	ev := in.Event
	if ev.AgentID != "" && g.cfg.HasRole(agentOf(in)) {
		return nil, nil
	}
	fin := ev.Input()
	file := fin.FilePath
	if file == "" {
		file = fin.NotebookPath
	}
	rel := pathglob.Rel(in.Layout.Root, file)
	domain := g.cfg.Route(rel)
	if domain == "" {
		return g.unrouted(in, rel), nil
	}
	var started, added bool
	l, err := g.update(ctx, in, func(l *Loop) bool {
		wasActive := l.Active
		had := len(l.ModifiedDomains)
		changed := l.Track(domain, rel, in.Now)
		started = !wasActive
		added = wasActive && len(l.ModifiedDomains) > had
		return changed || started
	})
	if err != nil {
		return nil, err
	}
	if !started && !added {
		return nil, nil
	}
	lim, vs := g.limits(in)
	return append(vs, gate.Verdict{Source: Source, Context: startContext(g.cfg, l, lim, domain, rel)}), nil
}

// agentOf returns the type of the subagent an event came from.
func agentOf(in *gate.Input) string {
	if a := in.Session.FindAgent(in.Event.AgentID); a != nil && a.Name != "" {
		return a.Name
	}
	return in.Event.AgentType
}

// result takes an agent's output into the loop.
func (g *Gate) result(ctx context.Context, in *gate.Input, r AgentResult) ([]gate.Verdict, error) {
	if r.Agent == "" {
		return nil, nil
	}
	if !g.cfg.HasRole(r.Agent) {
		if _, ok := ParseMarker(r.Text); !ok {
			return nil, nil
		}
	}
	if _, ok, err := g.exists(in); err != nil || !ok {
		return nil, err
	}
	lim, vs := g.limits(in)
	var out Outcome
	l, err := g.update(ctx, in, func(l *Loop) bool {
		before := len(l.History)
		out = l.Apply(g.cfg, lim, r, in.Now)
		if out.Escalated != nil {
			l.Escalation.Reported = true // told below
		}
		return len(l.History) != before
	})
	if err != nil {
		return nil, err
	}
	for _, res := range out.Applied {
		in.Observe.Emit(Source, CustomEvents, observe.PhaseResult, map[string]any{"domain": res.Domain, "phase": res.Phase,
			"status": res.Status, "agent": res.Agent, "marker": res.Marker, "kind": res.Kind, "iteration": l.Iteration})
	}
	v := gate.Verdict{Source: Source}
	if in.Name != hookio.SubagentStop {
		// SubagentStop carries no context for Claude; the next Stop says
		// what is left.
		v.Context = resultContext(g.cfg, l, lim, r, out)
	}
	if out.Escalated != nil {
		v.SystemMessage = escalationMessage(out.Escalated)
	}
	if v.Context != "" || v.SystemMessage != "" {
		vs = append(vs, v)
	}
	return vs, nil
}

// bypass records that an orchestration skill owns the loop.
func (g *Gate) bypass(ctx context.Context, in *gate.Input, skill string) ([]gate.Verdict, error) {
	skill = strings.TrimPrefix(skill, "/")
	if skill == "" || !matchAny(g.cfg.BypassSkills, skill) {
		return nil, nil
	}
	_, err := g.update(ctx, in, func(l *Loop) bool {
		if l.Bypass != nil && l.Bypass.Skill == skill {
			return false
		}
		l.Bypass = &Bypass{Skill: skill, At: in.Now}
		l.log(Result{At: in.Now, Kind: KindBypass, Note: skill + " runs its own review and test loop"})
		return true
	})
	return nil, err
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		p = strings.TrimPrefix(p, "/")
		if ok, _ := path.Match(p, name); ok || p == name {
			return true
		}
		// A plugin skill "plugin:name" matches its bare name too.
		if i := strings.LastIndex(name, ":"); i >= 0 {
			if ok, _ := path.Match(p, name[i+1:]); ok {
				return true
			}
		}
	}
	return false
}

// prompt closes an escalated loop when the user speaks, and otherwise
// reminds Claude of an active loop.
func (g *Gate) prompt(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	_, ok, err := g.exists(in)
	if err != nil || !ok {
		return nil, err
	}
	human := !strings.HasPrefix(strings.TrimSpace(in.Event.Prompt), "<task-notification>")
	var l *Loop
	l, err = g.update(ctx, in, func(l *Loop) bool {
		if human && l.Active && l.Escalation != nil {
			l.Close(in.Now)
			return true
		}
		return false
	})
	if err != nil || !l.Active || l.Escalation != nil || l.Bypass != nil {
		return nil, err
	}
	lim, vs := g.limits(in)
	return append(vs, gate.Verdict{Source: Source, Context: statusLine(g.cfg, l, lim)}), nil
}

// status reminds Claude of an active loop after compaction or resume.
func (g *Gate) status(in *gate.Input) ([]gate.Verdict, error) {
	p, ok, err := g.exists(in)
	if err != nil || !ok {
		return nil, err
	}
	l := NewLoop()
	if err := jsonfile.Read(p, l); err != nil {
		return nil, fmt.Errorf("feedback loop: %w", err)
	}
	l.normalize()
	if !l.Active || l.Escalation != nil || l.Bypass != nil {
		return nil, nil
	}
	lim, vs := g.limits(in)
	return append(vs, gate.Verdict{Source: Source, Context: statusLine(g.cfg, l, lim)}), nil
}

// stop blocks while a domain has a phase left, and says the next step per
// domain. It never looks at stop_hook_active: the loop needs one block per
// phase, and the recorder lets a Stop through after three blocks in a row
// without progress.
func (g *Gate) stop(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if _, ok, err := g.exists(in); err != nil || !ok {
		return nil, err
	}
	lim, vs := g.limits(in)
	var v *gate.Verdict
	_, err := g.update(ctx, in, func(l *Loop) bool {
		if !l.Active {
			return false
		}
		scanned := g.scanBypass(in, l)
		if e := l.Escalation; e != nil {
			if e.StopAllowed {
				return false
			}
			e.StopAllowed = true
			v = &gate.Verdict{Source: Source, Decision: gate.Allow, Reason: "escalated:" + e.Reason}
			if !e.Reported {
				e.Reported = true
				v.SystemMessage = escalationMessage(e)
			}
			return true
		}
		if l.Bypass != nil {
			v = &gate.Verdict{Source: Source, Decision: gate.Allow, Reason: "bypass:" + l.Bypass.Skill}
			return scanned
		}
		pending := l.Pending()
		if len(pending) == 0 {
			l.Complete(in.Now)
			v = &gate.Verdict{Source: Source, Decision: gate.Allow, Reason: "complete"}
			return true
		}
		waiting := g.waiting(in.Session, l, pending)
		if len(waiting) == len(pending) {
			names := make([]string, 0, len(waiting))
			for _, d := range pending {
				names = append(names, waiting[d])
			}
			v = &gate.Verdict{Source: Source, Decision: gate.Allow, Reason: "waiting:" + strings.Join(names, ",")}
			return scanned
		}
		v = &gate.Verdict{Source: Source, Decision: gate.Block, Reason: pendingReason(l, pending),
			Message: blockMessage(g.cfg, l, lim, pending, waiting)}
		return scanned
	})
	if err != nil {
		return nil, err
	}
	if v != nil {
		vs = append(vs, *v)
	}
	return vs, nil
}

// scanBypass searches the part of the session's transcript not searched
// yet for bypass_pattern (an orchestration skill at work) and records the
// bypass when it matches. It reports whether the loop changed. A
// transcript that cannot be read leaves the loop as it is.
func (g *Gate) scanBypass(in *gate.Input, l *Loop) bool {
	re := g.cfg.bypass()
	if re == nil || l.Bypass != nil || in.Event.TranscriptPath == "" {
		return false
	}
	m, next, err := ScanTranscript(in.Event.TranscriptPath, l.TranscriptScanned, re)
	if err != nil || (next == l.TranscriptScanned && m == "") {
		return false
	}
	l.TranscriptScanned = next
	if m != "" {
		l.Bypass = &Bypass{Skill: m, At: in.Now}
		l.log(Result{At: in.Now, Kind: KindBypass, Note: m + " (seen in the transcript) runs its own review and test loop"})
	}
	return true
}

// waiting maps each pending domain whose next phase's agent is running in
// the background to that agent: its result arrives with its SubagentStop,
// and Claude Code starts a new turn for it.
func (g *Gate) waiting(s *state.Session, l *Loop, pending []string) map[string]string {
	out := map[string]string{}
	for _, d := range pending {
		role := g.cfg.Role(d, l.DomainPhases[d].Next())
		for i := range s.AgentsHistory {
			a := &s.AgentsHistory[i]
			if a.Running() && a.Background && role.Has(a.Name) {
				out[d] = a.Name
				break
			}
		}
	}
	return out
}

// configProblem is the gate of an invalid feedback configuration: it tells
// the user once per session and enforces nothing, unless the section asks
// for fail_mode closed: then the loop could not decide, and every Stop is
// blocked until the configuration is fixed.
type configProblem struct {
	err    error
	closed bool
}

func (c configProblem) Name() string                 { return Source }
func (c configProblem) FailClosed() bool             { return c.closed }
func (c configProblem) Declares(in *gate.Input) bool { return c.closed && in.Name == hookio.Stop }
func (c configProblem) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if c.closed && in.Name == hookio.Stop {
		return nil, fmt.Errorf("the feedback configuration is invalid: %w", c.err)
	}
	if !showsSystemMessage(in.Name) || !in.Session.Note("feedback:config-error") {
		return nil, nil
	}
	return []gate.Verdict{{Source: Source,
		SystemMessage: fmt.Sprintf("spcstr: the feedback loop is off: %v (run `spcstr doctor`).", c.err)}}, nil
}

// showsSystemMessage reports whether Claude Code shows a systemMessage
// answered to event name (Claude Code's hooks reference: several events discard
// it).
func showsSystemMessage(name string) bool {
	switch name {
	case hookio.SessionStart, hookio.UserPromptSubmit, hookio.PreToolUse, hookio.PostToolUse,
		hookio.PostToolUseFailure, hookio.Stop, hookio.SubagentStop, hookio.PermissionRequest:
		return true
	}
	return false
}

// Validate reports what is wrong with the feedback configuration of a
// project (for `spcstr doctor`): the section itself and, when the loop is
// enabled, the limits file.
func Validate(setup gate.Setup) []error {
	c, err := LoadConfig(setup.Config)
	if err != nil {
		return []error{err}
	}
	if !c.Enabled {
		return nil
	}
	if _, err := LoadLimits(setup.Layout.Root, c.LimitsFile); err != nil {
		return []error{err}
	}
	return nil
}
