package recorder

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/strategy"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/internal/transcript"
	"github.com/dylan-gluck/spcstr/state"
)

// DryRunOptions say what `spcstr strategy dry-run` replays: a recorded
// session (SessionID: its events in the project's logs) or a Claude Code
// transcript (Transcript: a JSONL file).
type DryRunOptions struct {
	Layout     state.Layout
	Config     *config.Config
	SessionID  string
	Transcript string
	// Getenv reads the environment (SPCSTR_DRY_RUN); nil means os.Getenv.
	Getenv func(string) string
	// Strategy, when set, replays only that strategy (an error when it is
	// not an enabled strategy of the configuration).
	Strategy string
	// RunCommands runs the command strategies' commands (the user typed
	// --run-commands); otherwise each says what it would have asked.
	RunCommands bool
}

// DryRunStep is one replayed event that a strategy decided something
// about.
type DryRunStep struct {
	Index     int           `json:"index"` // 1-based, among the replayed events
	At        time.Time     `json:"at"`
	Event     string        `json:"event"`
	Tool      string        `json:"tool,omitempty"`
	Decisions []gate.Record `json:"decisions"`
	// Context is the additionalContext Claude would read, SystemMessage
	// what the user would be shown (both merged over the strategies, as
	// the hook would answer).
	Context       string `json:"context,omitempty"`
	SystemMessage string `json:"system_message,omitempty"`
	// Failures are the strategies that failed on this event.
	Failures []string `json:"failures,omitempty"`
}

// DryRunReport is everything a replay decided.
type DryRunReport struct {
	SessionID string `json:"session_id"`
	// Source is where the events came from: the logs folder or the
	// transcript file.
	Source     string       `json:"source"`
	Events     int          `json:"events"`
	Strategies []string     `json:"strategies"`
	Steps      []DryRunStep `json:"steps"`
}

// DryRun replays a session's events through the configured strategies as
// the recorder would run them, and returns every decision they take. It
// writes nothing under the project's .spcstr/: the strategies keep the
// state they build in a scratch folder, removed on return, and act on
// nothing outside the process (gate.Input.Replay: no notify command or
// bell, no advisor command; a command strategy runs its command only with
// RunCommands, and otherwise says what it would have asked). They see the project's files and git as they
// are now, and the session's tokens as the transcript had them at each
// event. Only the strategies run: not the requirements or the feedback
// loop.
func DryRun(ctx context.Context, opt DryRunOptions) (*DryRunReport, error) {
	if opt.Config == nil {
		opt.Config = config.Default()
	}
	if opt.Getenv == nil {
		opt.Getenv = os.Getenv
	}
	type replayed struct {
		at    time.Time
		name  string
		input json.RawMessage
	}
	var events []replayed
	rep := &DryRunReport{SessionID: opt.SessionID, Steps: []DryRunStep{}, Strategies: []string{}}
	switch {
	case opt.Transcript != "":
		evs, sid, err := transcript.Events(opt.Transcript)
		if err != nil {
			return nil, fmt.Errorf("read transcript: %w", err)
		}
		rep.SessionID, rep.Source = sid, opt.Transcript
		for _, e := range evs {
			events = append(events, replayed{at: e.At, name: e.Name, input: e.Payload})
		}
	case opt.SessionID != "":
		logged, err := sessionEvents(ctx, opt.Layout, opt.SessionID)
		if err != nil {
			return nil, err
		}
		rep.Source = opt.Layout.LogsDir()
		for _, e := range logged {
			events = append(events, replayed{at: e.at, name: e.name, input: e.input})
		}
	default:
		return nil, fmt.Errorf("nothing to replay: give a session or a transcript")
	}
	if len(events) == 0 {
		return nil, fmt.Errorf("%s: no events to replay", rep.Source)
	}
	if !state.ValidSessionID(rep.SessionID) {
		return nil, fmt.Errorf("%w: %q", state.ErrInvalidSessionID, termtext.Cut(rep.SessionID, 80))
	}
	rep.Events = len(events)

	scratch, err := os.MkdirTemp("", "spcstr-dry-run-")
	if err != nil {
		return nil, fmt.Errorf("scratch folder: %w", err)
	}
	defer os.RemoveAll(scratch)
	layout := state.Layout{Root: opt.Layout.Root, Scratch: scratch}
	gates := strategy.Gates(gate.Setup{Layout: layout, Config: opt.Config, Getenv: opt.Getenv})
	if opt.Strategy != "" {
		gates = slices.DeleteFunc(gates, func(g gate.Gate) bool { return g.Name() != strategy.Source(opt.Strategy) })
		if len(gates) == 0 {
			return nil, fmt.Errorf("no enabled strategy %q in %s (spcstr strategy list)", opt.Strategy, opt.Layout.ConfigPath())
		}
	}
	for _, g := range gates {
		if strings.HasPrefix(g.Name(), "strategy:") {
			rep.Strategies = append(rep.Strategies, strings.TrimPrefix(g.Name(), "strategy:"))
		}
	}

	s := state.New(rep.SessionID, layout.Root, events[0].at.UTC())
	var timeline *transcript.Timeline
	for i, e := range events {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ev, err := hookio.Decode(e.input)
		if err != nil || ev.SessionID != rep.SessionID {
			continue // the recorder rejected it too
		}
		now := e.at.UTC()
		(&applier{ev: ev, name: e.name, now: now, root: layout.Root}).apply(s)
		if timeline == nil && s.TranscriptPath != "" {
			if timeline, err = transcript.ReadTimeline(s.TranscriptPath); err != nil {
				return nil, fmt.Errorf("read transcript: %w", err)
			}
		}
		if timeline != nil {
			s.Tokens = timeline.Until(now)
		}
		s.Tokens.ContextWindow = transcript.ContextWindow(s.Model, opt.Config.ContextWindow)
		if len(gates) == 0 {
			continue
		}
		in := &gate.Input{Event: ev, Name: e.name, Session: s, Layout: layout, Now: now, Getenv: opt.Getenv, Replay: true,
			RunCommands: opt.RunCommands}
		res := gate.Run(ctx, gates, in, gate.Policy{DryRun: opt.Config.DryRun, Clock: func() time.Time { return now }})
		if e.name == hookio.PreToolUse && res.Answer.HookSpecificOutput != nil &&
			res.Answer.HookSpecificOutput.PermissionDecision == hookio.PermissionDeny && hookio.IsSubagentTool(ev.ToolName) {
			dropAgentCall(s, ev.ToolUseID) // as the recorder does: a denied spawn runs no agent
		}
		step := DryRunStep{Index: i + 1, At: now, Event: e.name, Decisions: res.Records, Failures: res.Failures,
			SystemMessage: res.Answer.SystemMessage}
		if h := res.Answer.HookSpecificOutput; h != nil {
			step.Context = h.AdditionalContext
		}
		if len(step.Decisions) == 0 && len(step.Failures) == 0 && step.Context == "" && step.SystemMessage == "" {
			continue
		}
		if step.Decisions == nil {
			step.Decisions = []gate.Record{}
		}
		if isToolEvent(e.name) {
			step.Tool = ev.ToolName
		}
		rep.Steps = append(rep.Steps, step)
	}
	return rep, nil
}

func isToolEvent(name string) bool {
	switch name {
	case hookio.PreToolUse, hookio.PostToolUse, hookio.PostToolUseFailure, hookio.PermissionRequest, hookio.PermissionDenied:
		return true
	}
	return false
}

// indented prints a labelled block of text, each line indented.
func indented(w io.Writer, label, text string) {
	if text = strings.TrimSpace(text); text == "" {
		return
	}
	fmt.Fprintln(w, label)
	for _, l := range strings.Split(text, "\n") {
		fmt.Fprintln(w, "      "+l)
	}
}

// WriteText prints the report for a person: one block per event the
// strategies answered, each decision as "would deny|block|allow", marked
// when it would only be recorded (dry-run), with its message, then the
// context Claude would read and the message the user would see; then a
// count.
func (r *DryRunReport) WriteText(w io.Writer) error {
	strategies := "no strategies"
	if len(r.Strategies) > 0 {
		strategies = "strategies " + strings.Join(r.Strategies, ", ")
	}
	fmt.Fprintf(w, "Dry run of session %s: %d events from %s through %s. Nothing was enforced or written.\n",
		r.SessionID, r.Events, r.Source, strategies)
	counts := map[string]int{}
	total := 0
	decided := 0
	for _, st := range r.Steps {
		if len(st.Decisions) > 0 {
			decided++
		}
		what := st.Event
		if st.Tool != "" {
			what += " " + st.Tool
		}
		fmt.Fprintf(w, "\n#%d %s %s\n", st.Index, st.At.Format("2006-01-02 15:04:05"), what)
		for _, d := range st.Decisions {
			total++
			counts[d.Decision]++
			line := fmt.Sprintf("  %s would %s", d.Source, d.Decision)
			if d.Reason != "" {
				line += " (" + d.Reason + ")"
			}
			if d.DryRun && d.Decision != gate.Allow {
				line += " [dry-run: recorded, not enforced]"
			}
			if d.Error != "" {
				line += " [error: " + d.Error + "]"
			}
			fmt.Fprintln(w, line)
			if (d.Decision != gate.Allow || d.Reason == strategy.ReasonNotRun) && d.Message != "" {
				for _, l := range strings.Split(strings.TrimSpace(d.Message), "\n") {
					fmt.Fprintln(w, "      "+l)
				}
			}
		}
		indented(w, "  context for Claude:", st.Context)
		indented(w, "  shown to the user:", st.SystemMessage)
		for _, f := range st.Failures {
			fmt.Fprintln(w, "  failed: "+f)
		}
	}
	_, err := fmt.Fprintf(w, "\n%d decisions, on %d of %d events: %d deny, %d block, %d allow.\n",
		total, decided, r.Events, counts[gate.Deny], counts[gate.Block], counts[gate.Allow])
	return err
}
