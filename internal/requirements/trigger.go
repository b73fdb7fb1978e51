package requirements

import (
	"path/filepath"
	"regexp"
	"strings"
)

// Trigger is one trigger_tools entry: a tool name, and for Bash optionally a
// regular expression that must match somewhere in the command (like
// Python's re.search; Go's RE2 syntax, so look-arounds are not available).
type Trigger struct {
	Tool           string
	CommandPattern string
	re             *regexp.Regexp
}

// Call is the part of a tool call that triggers look at.
type Call struct {
	Tool    string
	Command string // Bash's command
}

// Matches reports whether the trigger guards call.
func (t Trigger) Matches(c Call) bool {
	if t.Tool != c.Tool {
		return false
	}
	if t.re == nil {
		return true
	}
	return t.re.MatchString(c.Command)
}

// String shows the trigger as configured.
func (t Trigger) String() string {
	if t.CommandPattern == "" {
		return t.Tool
	}
	return t.Tool + " /" + t.CommandPattern + "/"
}

// Triggered reports whether any of r's triggers guards call.
func (r *Req) Triggered(c Call) bool {
	for _, t := range r.Triggers {
		if t.Matches(c) {
			return true
		}
	}
	return false
}

// guardsBash reports whether r has a Bash trigger matching call: the
// command whose completion clears a single_use requirement.
func (r *Req) guardsBash(c Call) bool {
	return c.Tool == "Bash" && r.Triggered(c)
}

// planFile reports whether path is a plan file, which the framework never
// gates: plan mode must be able to write the plan that satisfies the
// requirements (~/.claude/plans/ and any .claude/plans/ folder).
func planFile(path, home string) bool {
	if path == "" {
		return false
	}
	p := filepath.ToSlash(filepath.Clean(path))
	if home != "" && strings.HasPrefix(p, filepath.ToSlash(filepath.Join(home, ".claude", "plans"))+"/") {
		return true
	}
	return strings.Contains(p, "/.claude/plans/") || strings.HasPrefix(p, ".claude/plans/")
}
