package recorder

import (
	"context"
	"encoding/json"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/observe"
	"github.com/dylan-gluck/spcstr/internal/permchan"
)

// DenyMessage is what Claude reads when the user denies from the
// dashboard without typing a message.
const DenyMessage = "The user denied this from the spcstr dashboard."

// askDashboard posts a PermissionRequest that no gate decided to the
// project's dashboard, when one is open, and waits for its answer (its own
// step: the event is recorded and the session's lock released). It
// returns the answer to print and its decision record; nil when there is
// no dashboard, the wait ended unanswered, or the dashboard left the
// prompt to the terminal (Claude Code's dialog answers it). A question
// (AskUserQuestion) is not a permission: it stays in the terminal.
func (r *run) askDashboard(ctx context.Context, answer *hookio.Answer) (*hookio.Answer, []gate.Record) {
	if r.name != hookio.PermissionRequest || r.ev.ToolName == askTool || r.dirsErr != nil || r.opt.Getenv("SPCSTR_REPLAY") == "1" {
		return nil, nil
	}
	if answer == nil {
		answer = &hookio.Answer{}
	}
	if h := answer.HookSpecificOutput; h != nil && h.Decision != nil {
		return nil, nil // a gate answered it
	}
	wait := permchan.WaitFrom(r.opt.Getenv)
	if wait <= 0 {
		return nil, nil
	}
	ev := r.ev
	dir := permchan.Dir(r.opt.Getenv)
	start := time.Now()
	req := &permchan.Request{
		SessionID: ev.SessionID, Title: r.title, Cwd: ev.Cwd, ToolName: ev.ToolName, ToolInput: ev.ToolInput,
		Suggestions: suggestions(ev.Raw), AskedAt: r.now, Deadline: start.Add(wait),
	}
	a, err := permchan.Ask(ctx, dir, permchan.SocketPath(dir, r.layout.Root), req)
	if err != nil {
		return nil, nil
	}
	out := *answer
	dec := &hookio.PermissionRequestDecision{Behavior: a.Behavior, Message: a.Message}
	reason := gate.ReasonAnsweredHere
	switch {
	case a.Behavior == permchan.Deny && dec.Message == "":
		dec.Message = DenyMessage
	case a.Always && len(req.Suggestions) > 0:
		dec.UpdatedPermissions = req.Suggestions
		reason = gate.ReasonAlwaysAllowed
	}
	h := hookio.HookSpecific{HookEventName: hookio.PermissionRequest}
	if answer.HookSpecificOutput != nil {
		h = *answer.HookSpecificOutput
	}
	h.Decision = dec
	out.HookSpecificOutput = &h
	id := r.obs.ID()
	if id == "" {
		id = observe.NewRequestID()
	}
	rec := gate.UserAnswer(id, ev.SessionID, r.opt.Now(), gate.SourceDashboard, a.Behavior, reason, a.Message, time.Since(start))
	return &out, []gate.Record{rec}
}

// suggestions is the payload's permission_suggestions (Claude Code's own
// "don't ask again" rules), nil when absent or not an array.
func suggestions(raw []byte) json.RawMessage {
	var p struct {
		S json.RawMessage `json:"permission_suggestions"`
	}
	if json.Unmarshal(raw, &p) != nil || len(p.S) == 0 || p.S[0] != '[' {
		return nil
	}
	return p.S
}
