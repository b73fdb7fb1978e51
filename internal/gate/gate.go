// Package gate owns the verdict pipeline between the recorder and the
// policies that may answer Claude Code (requirements, the feedback loop,
// strategies): the Gate interface and the Verdict each returns; Run, which
// asks every gate and applies each one's fail mode when it could not
// decide (failmode.go: fail_mode open or closed, side writes, the gates
// that declare an event when the session's state is unavailable, an
// unusable config.yaml in configgate.go), dry-run and the Stop cap
// (escalate.go: stop_block_limit); how all verdicts merge into the one
// JSON answer a hook may print, strictest decision first and every reason
// attributed (Merge); and the decision record every verdict leaves in
// .spcstr/logs/decisions.json, with its enforcement. The recorder only
// calls Run. docs/answers.md describes the rules.
package gate

import (
	"context"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/observe"
	"github.com/dylan-gluck/spcstr/state"
)

// Decisions a verdict can carry.
const (
	Allow = "allow" // the gate looked and let the action through
	Deny  = "deny"  // PreToolUse: the tool call is refused
	Block = "block" // Stop/SubagentStop (and other blocking events): keep going
	// Escalated is the recorded decision of a block that gave way to the
	// stop cap (escalate.go): the Stop went through.
	Escalated = "escalated"
	// Ask is PreToolUse only: the user is asked to confirm the call.
	// Deny wins over ask, ask over allow.
	Ask = "ask"
)

// Verdict is one gate's answer to one event. A gate that has nothing to say
// about an event returns no verdict at all.
type Verdict struct {
	// Source names the gate ("requirements", "feedback",
	// "strategy:token-budget").
	Source string
	// Decision is Allow, Deny, Block, or "" for a verdict that only adds
	// context or a message.
	Decision string
	// Reason is a short machine-friendly reason ("unsatisfied:commit_plan").
	Reason string
	// Message is the text Claude reads for a deny or block.
	Message string
	// Context is additionalContext for Claude (SessionStart,
	// UserPromptSubmit, tool events).
	Context string
	// SystemMessage is a warning shown to the user.
	SystemMessage string
	// DryRun asks Run to log this verdict's decision with
	// dry_run: true and not enforce it (a strategy's own `dry_run: true`,
	// or strategies whose configuration conflicts). The global dry-run
	// (SPCSTR_DRY_RUN=1, `dry_run: true` at the top of config.yaml) applies
	// to every verdict without it.
	DryRun bool
	// Grant makes an Allow verdict an explicit approval where the event
	// takes one: a PermissionRequest answered "allow" without the user's
	// dialog (permission.go). Any other allow only says the gate let the
	// action through.
	Grant bool
	// Escalated marks a block Run let through because the gate had already
	// blocked its stop_block_limit of Stops in a row without progress
	// (escalate.go); its Decision is then Escalated. Run sets it; gates
	// leave it alone.
	Escalated bool
}

// Input is what a gate sees for one event.
type Input struct {
	Event *hookio.Event
	// Name is the event's CamelCase name.
	Name string
	// Session is the session's state after the recorder applied the event.
	// Gates may read it; they keep their own state in their own files.
	Session *state.Session
	Layout  state.Layout
	Now     time.Time
	// Getenv reads the hook's environment (tests substitute it).
	Getenv func(string) string
	// Observe collects the hook's observability events (nil: none). Run
	// reports every decision and failure into it; gates emit their custom
	// events through it (observe.Request.Emit).
	Observe *observe.Request
	// Unavailable is set when the session's state could not be locked or
	// read (the lock not taken in time, an unusable sessions folder, a
	// read-only .spcstr): no gate is evaluated, and every gate that
	// declares the event (Declarer) fails with this error, which its
	// fail_mode turns into a deny/block or a reported allow. Session is
	// then a stand-in that nothing persists.
	Unavailable error
	// Replay marks an event replayed by `spcstr strategy dry-run`, or by
	// `spcstr replay` and the demo (the hook sees SPCSTR_REPLAY=1), not
	// sent by Claude Code: a gate acts on nothing outside the process (no
	// bell, no command) and says in its verdict what it would have done.
	Replay bool
	// RunCommands allows the commands a project's configuration defines
	// (command strategies, the notify strategy's command, the escalation
	// advisor's commands) to run. Only the hook path turns it on, for an
	// event Claude Code sent: Claude Code runs hooks only in a folder the
	// user trusted, and nothing else in spcstr asked for that trust
	// (docs/security.md). Off, such a strategy says what it would have
	// run instead. `spcstr strategy dry-run --run-commands` is the user
	// asking for them by hand.
	RunCommands bool
}

// Setup is what a gate constructor gets: the project and its settings.
type Setup struct {
	Layout state.Layout
	Config *config.Config
	// ConfigErr is why config.yaml could not be read or parsed (Config
	// then holds the defaults).
	ConfigErr error
	Getenv    func(string) string
}

// Gate is one policy.
type Gate interface {
	// Name identifies the gate in decisions.json.
	Name() string
	// Evaluate returns the gate's verdicts for one event. An error means
	// the gate itself failed; FailClosed decides what that does.
	Evaluate(ctx context.Context, in *Input) ([]Verdict, error)
	// FailClosed reports whether an error of this gate should block or deny
	// (fail_mode: closed) instead of letting the action through.
	FailClosed() bool
}

// Merge folds verdicts into the single answer for event name, the way
// Claude Code merges several hooks and Kubernetes its validating admission
// webhooks: the strictest decision wins (PreToolUse: deny over ask over
// allow; every other blocking event: block over allow), and every reason
// that decision stands on reaches Claude, in gate order (the order of the
// verdicts). When more than one gate gives a reason, each is attributed
// ("[strategy:quality-gate] …"). Contexts and system messages are joined.
// Verdicts whose decision the event cannot carry only contribute their
// messages. Nothing two gates answer is unmergeable: spcstr passes no
// updatedInput and never answers a PreToolUse with allow (which would
// skip Claude Code's permission prompt), so there is no conflict to
// resolve.
func Merge(name string, verdicts []Verdict) *hookio.Answer {
	var denies, asks, contexts, sysmsgs []verdictText
	for _, v := range verdicts {
		switch v.Decision {
		case Deny, Block:
			denies = append(denies, verdictText{v.Source, v.Message})
		case Ask:
			asks = append(asks, verdictText{v.Source, v.Message})
		}
		if v.Context != "" {
			contexts = append(contexts, verdictText{v.Source, v.Context})
		}
		if v.SystemMessage != "" {
			sysmsgs = append(sysmsgs, verdictText{v.Source, v.SystemMessage})
		}
	}
	a := &hookio.Answer{SystemMessage: join(sysmsgs, false)}
	hso := func() *hookio.HookSpecific {
		if a.HookSpecificOutput == nil {
			a.HookSpecificOutput = &hookio.HookSpecific{HookEventName: name}
		}
		return a.HookSpecificOutput
	}
	switch name {
	case hookio.PreToolUse:
		switch {
		case len(denies) > 0:
			h := hso()
			h.PermissionDecision = hookio.PermissionDeny
			h.PermissionDecisionReason = join(denies, true)
		case len(asks) > 0:
			h := hso()
			h.PermissionDecision = hookio.PermissionAsk
			h.PermissionDecisionReason = join(asks, true)
		}
	case hookio.PermissionRequest:
		mergePermission(hso, verdicts, denies)
	case hookio.Stop, hookio.SubagentStop, hookio.PostToolUse, hookio.UserPromptSubmit,
		hookio.PostToolBatch, hookio.TaskCreated, hookio.PreCompact, hookio.ConfigChange:
		if len(denies) > 0 {
			a.Decision = hookio.DecisionBlock
			a.Reason = join(denies, true)
		}
	}
	if len(contexts) > 0 && acceptsContext(name) {
		hso().AdditionalContext = join(contexts, false)
	}
	return a
}

// verdictText is one gate's text in a merged answer.
type verdictText struct{ source, text string }

// join joins texts with blank lines. With attribute, and more than one
// gate speaking, each text is prefixed with its gate's name.
func join(texts []verdictText, attribute bool) string {
	if len(texts) == 0 {
		return ""
	}
	sources := map[string]bool{}
	for _, t := range texts {
		sources[t.source] = true
	}
	parts := make([]string, len(texts))
	for i, t := range texts {
		parts[i] = t.text
		if attribute && len(sources) > 1 && t.source != "" {
			parts[i] = "[" + t.source + "] " + t.text
		}
	}
	return strings.Join(parts, "\n\n")
}

// acceptsContext lists the events whose hookSpecificOutput may carry
// additionalContext.
func acceptsContext(name string) bool {
	switch name {
	case hookio.SessionStart, hookio.UserPromptSubmit, hookio.UserPromptExpansion,
		hookio.PreToolUse, hookio.PostToolUse, hookio.PostToolUseFailure, hookio.PostToolBatch,
		hookio.SubagentStart, hookio.Setup:
		return true
	}
	return false
}

// CanBlock reports whether a Block verdict has any effect on event name.
func CanBlock(name string) bool {
	switch name {
	case hookio.PreToolUse, hookio.Stop, hookio.SubagentStop, hookio.PostToolUse,
		hookio.UserPromptSubmit, hookio.PostToolBatch, hookio.TaskCreated,
		hookio.PreCompact, hookio.ConfigChange:
		return true
	}
	return false
}

// Record is one entry of decisions.json (docs/logs.md).
type Record struct {
	RequestID string    `json:"request_id"`
	SessionID string    `json:"session_id"`
	Timestamp time.Time `json:"timestamp"`
	Source    string    `json:"source"`
	Hook      string    `json:"hook"`
	Decision  string    `json:"decision"`
	Reason    string    `json:"reason,omitempty"`
	Message   string    `json:"message,omitempty"`
	// SystemMessage and Context are what an allow told the user and
	// Claude (a warning, injected context), each cut to 1 KiB.
	SystemMessage string  `json:"system_message,omitempty"`
	Context       string  `json:"context,omitempty"`
	DurationMS    float64 `json:"duration_ms"`
	DryRun        bool    `json:"dry_run"`
	Error         string  `json:"error,omitempty"`
	// Enforcement says what became of the decision: "enforced", "dry-run",
	// "failed-open" (the gate could not decide and let the action
	// through), "failed-closed" (it could not decide and denied or
	// blocked) or "gave-way" (a block the stop cap let through).
	Enforcement string `json:"enforcement,omitempty"`
}

// Enforcement values of a Record.
const (
	Enforced     = "enforced"
	DryRunned    = "dry-run"
	FailedOpen   = "failed-open"
	FailedClosed = "failed-closed"
	GaveWay      = "gave-way"
)
