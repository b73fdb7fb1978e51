package hookio

import (
	"fmt"
	"regexp"
	"strings"
)

// Matcher is a hook matcher as Claude Code reads it (its hooks reference,
// "Matcher patterns"): "" or "*" matches every tool; a matcher of only
// letters, digits, `_`, `-`, spaces, `,` and `|` is a list of exact tool
// names ("Edit,Write", "Edit | Write"); anything else is a regular
// expression matched anywhere in the name, unanchored ("Edit.*" matches
// NotebookEdit; "^Edit$" only Edit). Every matcher spcstr evaluates (a
// command strategy's `matcher:`, a strategy's "PreToolUse:<matcher>"
// hook) goes through here, so that a gate runs exactly where Claude Code
// would run the same hook.
type Matcher struct {
	src   string
	all   bool
	names []string
	re    *regexp.Regexp
}

// CompileMatcher reads a matcher. A regular expression that does not
// compile (Go's RE2 syntax: no look-around or back-references) is an
// error.
func CompileMatcher(m string) (Matcher, error) {
	t := strings.TrimSpace(m)
	if t == "" || t == "*" {
		return Matcher{src: m, all: true}, nil
	}
	if exactList(t) {
		var names []string
		for _, n := range strings.FieldsFunc(t, func(r rune) bool { return r == '|' || r == ',' }) {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		return Matcher{src: m, names: names}, nil
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return Matcher{}, fmt.Errorf("matcher %q: %w", m, err)
	}
	return Matcher{src: m, re: re}, nil
}

// exactList reports whether a matcher is a list of exact names: only
// letters, digits, `_`, `-`, space, `,` and `|`.
func exactList(m string) bool {
	for _, r := range m {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '_', r == '-', r == ' ', r == ',', r == '|':
		default:
			return false
		}
	}
	return true
}

// Match reports whether the matcher selects tool. The zero Matcher
// matches every tool.
func (m Matcher) Match(tool string) bool {
	switch {
	case m.re != nil:
		return m.re.MatchString(tool)
	case m.names != nil:
		for _, n := range m.names {
			if n == tool {
				return true
			}
		}
		return false
	}
	return true
}

// All reports whether the matcher selects every tool.
func (m Matcher) All() bool { return m.re == nil && m.names == nil }

// Regexp reports whether the matcher is a regular expression.
func (m Matcher) Regexp() bool { return m.re != nil }

// Names are the exact tool names of a list matcher (nil otherwise).
func (m Matcher) Names() []string { return m.names }

// String is the matcher as written.
func (m Matcher) String() string { return m.src }

// KnownTools are the tool names Claude Code's tool events carry
// (protocol reference, "Tool input and tool_response shapes"), besides
// MCP tools (mcp__<server>__<tool>). A matcher that selects none of them
// and no MCP tool is most likely a mistake (spcstr strategy validate
// warns).
var KnownTools = []string{
	"Agent", "AskUserQuestion", "Bash", "BashOutput", "Edit", "EnterPlanMode", "ExitPlanMode", "Glob", "Grep", "KillShell",
	"LS", "Monitor", "MultiEdit", "NotebookEdit", "PowerShell", "Read", "Skill", "Task", "TaskCreate", "TaskGet",
	"TaskOutput", "TaskUpdate", "TodoWrite", "ToolSearch", "WebFetch", "WebSearch", "Write",
}

// Unmatched says why a matcher most likely never selects a tool ("" when
// it can): a listed name that is no known tool and no MCP tool (names are
// case-sensitive), or a regular expression that selects no known tool and
// cannot select an MCP tool.
func (m Matcher) Unmatched() string {
	known := func(n string) bool {
		for _, k := range KnownTools {
			if k == n {
				return true
			}
		}
		return false
	}
	switch {
	case m.names != nil:
		var unknown []string
		for _, n := range m.names {
			if !known(n) && !strings.HasPrefix(n, "mcp__") {
				unknown = append(unknown, n)
			}
		}
		if len(unknown) > 0 {
			return fmt.Sprintf("matcher %q: %s is no tool name Claude Code knows (names are exact and case-sensitive)",
				m.src, strings.Join(unknown, ", "))
		}
	case m.re != nil:
		for _, k := range KnownTools {
			if m.re.MatchString(k) {
				return ""
			}
		}
		if strings.Contains(m.src, "mcp") || m.re.MatchString("mcp__server__tool") {
			return ""
		}
		return fmt.Sprintf("matcher %q is a regular expression (unanchored, as Claude Code reads it) that matches no tool Claude Code knows", m.src)
	}
	return ""
}
