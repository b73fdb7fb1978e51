package requirements

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
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

// compilePattern compiles a command_pattern written for Python's re: with
// Go's RE2 when it can (linear time, in the hook's own process). A pattern
// RE2 rejects (look-arounds, back-references: Python's own syntax) is
// checked for syntax here and matched by MatchPython, which the binary
// provides: spcstr links the backtracking engine (internal/pyregex);
// spcstr-hook asks spcstr, so that the engine's package init is not paid by
// every hook call.
func compilePattern(s string) (matcher, error) {
	re, err := regexp.Compile(s)
	if err == nil {
		return re, nil
	}
	if perr := checkPythonSyntax(s); perr != nil {
		return nil, fmt.Errorf("%v (also as a Python pattern: %v)", err, perr)
	}
	return pythonPattern{src: s}, nil
}

// pythonPattern is a command_pattern only Python's syntax accepts, matched
// by MatchPython. One that cannot be matched (no engine, a pattern the
// engine rejects, a match that ran out of time) does not match, and says
// why on stderr.
type pythonPattern struct{ src string }

// Match is MatchString with the reason a match could not be made.
func (p pythonPattern) Match(s string) (bool, error) {
	ok, err := MatchPython(p.src, s)
	if err != nil {
		return false, fmt.Errorf("command_pattern %q cannot be matched: %w", p.src, err)
	}
	return ok, nil
}

func (p pythonPattern) MatchString(s string) bool {
	ok, err := MatchPython(p.src, s)
	if err != nil {
		fmt.Fprintf(os.Stderr, "spcstr: command_pattern %q cannot be matched (treated as no match): %v\n", p.src, err)
		return false
	}
	return ok
}

// MatchPython reports whether a pattern only Python's syntax accepts
// matches somewhere in text (Python's re.search). The binary sets it before
// any requirement is read: spcstr to internal/pyregex's Match, spcstr-hook
// to a call of spcstr. Left unset, such a pattern never matches and says so.
var MatchPython = func(pattern, text string) (bool, error) {
	return false, errors.New("this binary has no engine for Python-only patterns")
}

// checkPythonSyntax checks the syntax of a pattern RE2 rejects without a
// Python engine: Python's constructs RE2 lacks are rewritten into ones it
// parses (a look-around or atomic group into a plain group, a
// back-reference into a literal, \Z into \z, a possessive quantifier into
// a greedy one), and RE2's parser then finds unbalanced groups, bad
// repetitions and the like. the engine reports anything it still rejects
// when it matches.
func checkPythonSyntax(s string) error {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			next := s[i+1]
			switch {
			case !inClass && next >= '1' && next <= '9':
				b.WriteString("x") // a back-reference
				for i+2 < len(s) && s[i+2] >= '0' && s[i+2] <= '9' {
					i++
				}
			case next == 'Z':
				b.WriteString(`\z`)
			default:
				b.WriteByte(c)
				b.WriteByte(next)
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			if i+1 < len(s) && s[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(s) && s[i+1] == ']' { // a literal ] first in a class
				b.WriteByte(']')
				i++
			}
		case c == '(' && strings.HasPrefix(s[i:], "(?P="):
			end := strings.IndexByte(s[i:], ')')
			if end < 0 {
				return errors.New("missing ) after (?P=")
			}
			b.WriteString("(?:x)")
			i += end
		case c == '(':
			rest := s[i:]
			marker := ""
			for _, m := range []string{"(?<=", "(?<!", "(?=", "(?!", "(?>"} {
				if strings.HasPrefix(rest, m) {
					marker = m
					break
				}
			}
			if marker != "" {
				b.WriteString("(?:")
				i += len(marker) - 1
			} else {
				b.WriteByte(c)
			}
		case c == '+' && i > 0 && strings.IndexByte("*+?}", s[i-1]) >= 0 && !(i > 1 && s[i-2] == '\\'):
			// possessive: drop the second quantifier sign
		default:
			b.WriteByte(c)
		}
	}
	_, err := syntax.Parse(b.String(), syntax.Perl)
	return err
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

// matchErr is Matches with the reason a command_pattern could not be
// matched (spcstr-pyre missing, its timeout).
func (t Trigger) matchErr(c Call) (bool, error) {
	if t.Tool != c.Tool || t.re == nil {
		return t.Matches(c), nil
	}
	if m, ok := t.re.(interface{ Match(string) (bool, error) }); ok {
		return m.Match(c.Command)
	}
	return t.re.MatchString(c.Command), nil
}

// TriggeredErr is Triggered, saying when a trigger could not be matched
// (then the call may or may not be guarded: the gate could not decide).
// A trigger that matches wins over one that could not be matched.
func (r *Req) TriggeredErr(c Call) (bool, error) {
	var errs error
	for _, t := range r.Triggers {
		ok, err := t.matchErr(c)
		if ok {
			return true, nil
		}
		errs = errors.Join(errs, err)
	}
	return false, errs
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

// gitCommit matches a `git commit` anywhere in a command line (after
// git's own options, such as -C DIR or -c KEY=VALUE). Compiled on first
// use, not in every hook's start-up.
var gitCommit = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s;&|(])git(?:\s+-[cC]\s+\S+|\s+--?[\w-]+(?:=\S+)?)*\s+commit(?:\s|$|;|&|\|)`)
})

// UsedUpBy reports whether call, once it completed, uses up the
// single_use requirement r: a Bash trigger of r matches the command, or r
// has no Bash trigger (Edit, Write, ...: the seed's pre_commit_review
// scenario) and the command is a `git commit`.
func (r *Req) UsedUpBy(c Call) bool {
	if c.Tool != "Bash" {
		return false
	}
	for _, t := range r.Triggers {
		if t.Tool == "Bash" {
			return r.guardsBash(c)
		}
	}
	return gitCommit().MatchString(c.Command)
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
