package requirements

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/dlclark/regexp2"
)

// Trigger is one trigger_tools entry: a tool name, and for Bash optionally a
// regular expression that must match somewhere in the command (like
// Python's re.search).
type Trigger struct {
	Tool           string
	CommandPattern string
	re             matcher
}

// matcher is a compiled command_pattern.
type matcher interface{ MatchString(string) bool }

// patternTimeout bounds one match of a backtracking pattern: a pattern
// that backtracks catastrophically does not match rather than hang the
// hook.
const patternTimeout = 100 * time.Millisecond

// backtracking is a pattern that RE2 rejects (look-arounds,
// back-references, possessive or atomic groups: Python's re syntax),
// matched by a backtracking engine.
type backtracking struct{ re *regexp2.Regexp }

func (b backtracking) MatchString(s string) bool {
	ok, err := b.re.MatchString(s)
	return ok && err == nil
}

// pyNamedRef finds Python's named back-references, compiled on first use:
// package init runs on every hook, and few patterns need it.
var pyNamedRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(\?P=(\w+)\)`) })

// compilePattern compiles a command_pattern written for Python's re: with
// Go's RE2 when it can (linear time), else with a backtracking engine
// that supports look-arounds and back-references.
func compilePattern(s string) (matcher, error) {
	re, err := regexp.Compile(s)
	if err == nil {
		return re, nil
	}
	// Python's (?P<name>...) and (?P=name) are regexp2's (?<name>...) and
	// \k<name>; \Z is Python's absolute end, regexp2's \z.
	py := pyNamedRef().ReplaceAllString(s, `\k<$1>`)
	py = strings.NewReplacer("(?P<", "(?<", `\Z`, `\z`).Replace(py)
	re2, err2 := regexp2.Compile(py, regexp2.None)
	if err2 != nil {
		return nil, fmt.Errorf("%v (also as a Python pattern: %v)", err, err2)
	}
	re2.MatchTimeout = patternTimeout
	return backtracking{re2}, nil
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
