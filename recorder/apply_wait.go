package recorder

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/state"
)

// askTool is the tool that asks the user a question.
const askTool = "AskUserQuestion"

// maxAsked bounds state.json's asked text.
const maxAsked = 300

// wait records what the session waits for (state.Wait*; "" for nothing)
// and since when: a wait of the same kind keeps its start.
func (a *applier) wait(s *state.Session, kind, asked string) {
	if kind == "" {
		s.Wait, s.Asked, s.WaitSince = "", "", time.Time{}
		return
	}
	if s.Wait != kind || s.WaitSince.IsZero() {
		s.WaitSince = a.now
	}
	s.Wait = kind
	s.Asked = termtext.Cut(oneLine(asked), maxAsked)
}

// needs records a wait for the user's answer (status needs_input).
func (a *applier) needs(s *state.Session, kind, asked string) {
	s.Status = state.StatusNeedsInput
	a.wait(s, kind, asked)
}

// notified applies a Notification that says the session waits for the
// user: what it waits for, unless an event already said it more exactly.
func (a *applier) notified(s *state.Session) {
	ev := a.ev
	kind := state.WaitQuestion
	switch ev.NotificationType {
	case "permission_prompt":
		kind = state.WaitPermission
	case "idle_prompt":
		kind = state.WaitIdle
	case "":
		kind = state.WaitIdle
		if strings.Contains(strings.ToLower(ev.Message), "permission") {
			kind = state.WaitPermission
		}
	}
	if s.Status == state.StatusNeedsInput && s.Wait == kind && s.Asked != "" {
		return // the PermissionRequest or the question said more
	}
	asked := ev.Message
	if kind == state.WaitIdle {
		asked = ""
	}
	a.needs(s, kind, asked)
}

// asked is a PermissionRequest's tool and command or file, for people:
// "Bash `npm publish`".
func (a *applier) asked() string {
	in := a.ev.Input()
	what := firstNonEmpty(in.Command, a.rel(firstNonEmpty(in.FilePath, in.NotebookPath)), in.URL, in.Pattern, in.Query, in.Skill)
	first, _, _ := strings.Cut(what, "\n")
	if first == "" {
		return a.ev.ToolName
	}
	return a.ev.ToolName + " `" + termtext.Cut(first, 200) + "`"
}

// question is AskUserQuestion's first question.
func (a *applier) question() string {
	var in struct {
		Questions []struct {
			Question string `json:"question"`
		} `json:"questions"`
	}
	if json.Unmarshal(a.ev.ToolInput, &in) == nil && len(in.Questions) > 0 {
		return in.Questions[0].Question
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
