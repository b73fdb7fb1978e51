package recorder

import (
	"testing"

	"github.com/dylan-gluck/spcstr/state"
)

// Each condition a session can be in, from the events Claude Code sends
// (issue 31): what it waits for, in the words every view uses.
func TestConditionsFromEvents(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []string
		proc   state.Process
		want   string
	}{
		{"working", []string{ev("UserPromptSubmit", "c1", `"prompt":"go"`)}, state.ProcessAlive, "working"},
		{"needs permission", []string{
			ev("UserPromptSubmit", "c1", `"prompt":"go"`),
			ev("PermissionRequest", "c1", `"tool_name":"Bash","tool_input":{"command":"npm publish\nand more"}`),
		}, state.ProcessAlive, "needs permission: Bash `npm publish`"},
		{"the notification after it says no more", []string{
			ev("PermissionRequest", "c1", `"tool_name":"Write","tool_input":{"file_path":"/elsewhere/a.txt"}`),
			ev("Notification", "c1", `"notification_type":"permission_prompt","message":"Claude needs your permission to use Write"`),
		}, state.ProcessAlive, "needs permission: Write `/elsewhere/a.txt`"},
		{"asks a question", []string{
			ev("PreToolUse", "c1", `"tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Which database?","header":"DB","options":[]}]}`),
		}, state.ProcessAlive, "asks a question: Which database?"},
		{"elicitation", []string{
			ev("Elicitation", "c1", `"mcp_server_name":"jira","message":"Pick a project"`),
		}, state.ProcessAlive, "asks a question: Pick a project"},
		{"answered", []string{
			ev("PermissionRequest", "c1", `"tool_name":"Bash","tool_input":{"command":"ls"}`),
			ev("PostToolUse", "c1", `"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"`),
		}, state.ProcessAlive, "working"},
		{"idle after Stop", []string{ev("UserPromptSubmit", "c1", `"prompt":"go"`), ev("Stop", "c1", "")}, state.ProcessAlive, "idle"},
		{"idle prompt", []string{ev("Stop", "c1", ""), ev("Notification", "c1", `"notification_type":"idle_prompt","message":"Claude is waiting for your input"`)},
			state.ProcessAlive, "idle"},
		{"failed", []string{ev("UserPromptSubmit", "c1", `"prompt":"go"`), ev("StopFailure", "c1", `"error":"rate_limit","error_details":"429 too many requests"`)},
			state.ProcessAlive, "failed: rate_limit: 429 too many requests"},
		{"ended", []string{ev("SessionEnd", "c1", `"reason":"prompt_input_exit"`)}, state.ProcessGone, "ended: prompt_input_exit"},
		{"gone", []string{ev("UserPromptSubmit", "c1", `"prompt":"go"`)}, state.ProcessGone, "gone"},
		{"not in the registry", []string{ev("UserPromptSubmit", "c1", `"prompt":"go"`)}, state.ProcessUnknown, "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProject(t)
			for _, e := range tc.events {
				p.run([]byte(e), "")
			}
			s, err := p.layout().Load("c1")
			if err != nil {
				t.Fatal(err)
			}
			if got := state.Of(s, tc.proc).String(); got != tc.want {
				t.Errorf("condition = %q, want %q (wait %q asked %q status %q)", got, tc.want, s.Wait, s.Asked, s.Status)
			}
			if c := state.Of(s, tc.proc).Condition; c.NeedsYou() && s.WaitSince.IsZero() {
				t.Error("a wait without its start")
			}
		})
	}
	// Nothing read: unknown.
	if got := state.Of(nil, state.ProcessAlive).Condition; got != state.Unknown {
		t.Errorf("no state: %s", got)
	}
}
