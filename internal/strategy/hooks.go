package strategy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// Hook is one hook a strategy uses: a Claude Code event, for tool events
// optionally one tool ("*" for all), and whether the strategy may block or
// deny there.
type Hook struct {
	Event  string
	Tool   string
	Blocks bool
}

// String is the declaration form: "Stop", "PreToolUse:Agent",
// "PostToolUse:*".
func (h Hook) String() string {
	if h.Tool != "" {
		return h.Event + ":" + h.Tool
	}
	return h.Event
}

// Overlaps reports whether two hooks can fire for the same call: the same
// event, and the same tool or a catch-all on either side.
func (h Hook) Overlaps(o Hook) bool {
	if h.Event != o.Event {
		return false
	}
	return h.Tool == o.Tool || h.Tool == "*" || o.Tool == "*" || h.Tool == "" || o.Tool == ""
}

// Matches reports whether the hook fires for event name and tool.
func (h Hook) Matches(name, tool string) bool {
	if h.Event != name {
		return false
	}
	if h.Tool == "" || h.Tool == "*" || h.Tool == tool {
		return true
	}
	// "PreToolUse:Edit|Write": the tool part is a matcher, read as
	// Claude Code reads one (hookio.Matcher).
	m, err := hookio.CompileMatcher(h.Tool)
	return err == nil && m.Match(tool)
}

func isToolEvent(name string) bool {
	switch name {
	case hookio.PreToolUse, hookio.PostToolUse, hookio.PostToolUseFailure, hookio.PermissionRequest,
		hookio.PermissionDenied:
		return true
	}
	return false
}

// ParseHook reads a hook declaration. It accepts the event names Claude
// Code uses ("Stop", "PreToolUse:Bash", "PostToolUse:*"), their snake_case
// spellings ("pre_tool_use:Bash"), and the strategy framework's own forms ("on_stop",
// "on_session_start", "pre_tool:Bash", "post_tool:*").
func ParseHook(s string) (Hook, error) {
	ev, tool, _ := strings.Cut(strings.TrimSpace(s), ":")
	switch ev {
	case "pre_tool":
		ev = hookio.PreToolUse
	case "post_tool":
		ev = hookio.PostToolUse
	case "on_prompt":
		ev = hookio.UserPromptSubmit
	default:
		ev = hookio.CamelName(strings.TrimPrefix(ev, "on_"))
	}
	if !slices.Contains(hookio.KnownEvents, ev) {
		return Hook{}, fmt.Errorf("unknown hook %q", s)
	}
	if tool != "" && !isToolEvent(ev) {
		return Hook{}, fmt.Errorf("hook %q: only tool events take a tool", s)
	}
	if tool != "" {
		if _, err := hookio.CompileMatcher(tool); err != nil {
			return Hook{}, fmt.Errorf("hook %q: %w", s, err)
		}
	}
	if tool == "" && isToolEvent(ev) {
		tool = "*"
	}
	return Hook{Event: ev, Tool: tool}, nil
}

// narrow keeps the declared hooks that one of the listed hooks selects
// (all of them when the list is empty). A listed hook that selects none of
// the declared ones is an error.
func narrow(declared []Hook, list []string) ([]Hook, error) {
	if len(list) == 0 {
		return declared, nil
	}
	keep := make([]bool, len(declared))
	for _, s := range list {
		u, err := ParseHook(s)
		if err != nil {
			return nil, fmt.Errorf("hooks: %w", err)
		}
		hit := false
		for i, d := range declared {
			if d.Event == u.Event && (u.Tool == d.Tool || u.Tool == "*" || u.Tool == "") {
				keep[i], hit = true, true
			}
		}
		if !hit {
			names := make([]string, 0, len(declared))
			for _, d := range declared {
				names = append(names, d.String())
			}
			return nil, fmt.Errorf("hooks: %q is not a hook this strategy uses (it uses %s)", s, strings.Join(names, ", "))
		}
	}
	var out []Hook
	for i, d := range declared {
		if keep[i] {
			out = append(out, d)
		}
	}
	return out, nil
}
