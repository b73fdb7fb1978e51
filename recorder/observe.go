package recorder

import (
	"fmt"

	"github.com/dylan-gluck/spcstr/internal/observe"
	"github.com/dylan-gluck/spcstr/logs"
)

// startObserve begins the hook's observability request (unless
// observability.enabled is false); hook_enter is added by finishObserve.
func (r *run) startObserve() {
	o := r.cfg.Observability
	if !o.On() {
		return
	}
	v, err := observe.ParseVerbosity(o.Verbosity)
	if err != nil {
		r.fail("%s: %v", r.layout.ConfigPath(), err)
	}
	// Only the tool events carry a tool_name.
	r.obs = observe.New(r.ev.SessionID, observe.HookName(r.name, r.ev.ToolName), v, r.start, r.opt.Now)
}

// enterObserve records hook_enter (first among the hook's events, stamped
// with its start). It is built once the event is logged: nothing on the
// way to the hook's answer waits for it.
func (r *run) enterObserve() {
	if !r.obs.Verbosity().Keeps(observe.HookEnter) {
		return
	}
	summary := map[string]any{
		"tool_name": r.ev.ToolName, "tool_use_id": r.ev.ToolUseID,
		"agent_id": r.ev.AgentID, "agent_type": r.ev.AgentType, "source": r.ev.Source,
	}
	var input []byte
	if r.obs.Verbose() {
		input, _ = logs.CapPayload(r.raw, r.cfg.Logs.MaxPayloadBytes)
	}
	r.obs.Enter(summary, input)
}

// finishObserve records the hook's own errors and hook_exit, and appends
// the hook's events to the session's observability.jsonl in one write.
func (r *run) finishObserve(decisions int, answered bool) {
	if r.obs == nil {
		return
	}
	r.enterObserve()
	for _, msg := range r.errs {
		r.obs.Error("", "spcstr", msg, "")
	}
	r.obs.Exit(map[string]any{"decisions": decisions, "answered": answered})
	path, err := r.layout.ObservabilityPathIn(r.cfg.Observability.Dir, r.ev.SessionID)
	if err != nil && r.cfg.Observability.Dir != "" {
		// An unusable observability.dir loses no events: they go to the
		// default place, and stderr (and spcstr doctor) say why.
		fmt.Fprintf(r.opt.Stderr, "spcstr hook: observability: %v; writing to the session folder instead\n", err)
		path, err = r.layout.ObservabilityPath(r.ev.SessionID)
	}
	if err == nil {
		err = r.obs.Flush(path)
	}
	if err != nil {
		fmt.Fprintf(r.opt.Stderr, "spcstr hook: observability: %v\n", err)
	}
}
