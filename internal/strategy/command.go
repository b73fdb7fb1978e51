package strategy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/termtext"
)

// Command strategies: any Claude Code hook script as a strategy
// (docs/feedback-and-strategies.md). A `strategies:` entry whose name is
// not a built-in and that has a `command:` key runs that command on the
// hooks it lists, with the hook payload on stdin, and reads its answer in
// Claude Code's own hook protocol. spcstr adds the merge with every other
// gate, fail_mode, dry-run, bounded runtime and output, and the records.

// Limits of a command strategy.
const (
	// DefaultCommandTimeout is a command's timeout without `timeout:`.
	DefaultCommandTimeout = 10 * time.Second
	// MaxCommandTimeout caps `timeout:` (Claude Code's own default for a
	// hook is 60 s).
	MaxCommandTimeout = 600 * time.Second
	// MaxCommandStdout is how much of a command's stdout is kept: an
	// answer longer than that is garbage (the fail mode decides).
	MaxCommandStdout = 1 << 20
	// MaxCommandStderr is how much of its stderr is kept (the reason of an
	// exit 2, cut).
	MaxCommandStderr = 64 << 10
)

// commandOptions are a command strategy's keys.
type commandOptions struct {
	Common `yaml:",inline"`
	// Command is a string (run with sh -c) or a list (run without a shell).
	Command any `yaml:"command"`
	// Matcher narrows tool events to tools, in Claude Code's matcher syntax
	// (a tool name, "Edit|Write", a regular expression; "" or "*": all).
	Matcher string `yaml:"matcher"`
	// Timeout is in seconds (default 10, at most 600).
	Timeout float64 `yaml:"timeout"`
	// Description is shown by spcstr strategy list.
	Description string `yaml:"description"`
	// Version is the command's own version, shown by spcstr strategy list
	// --json (default FirstVersion).
	Version string `yaml:"version"`
}

// commandStrategy runs one command strategy.
type commandStrategy struct {
	argv    []string // argv[0] is the program; a string command is sh -c
	matcher hookio.Matcher
	hooks   []Hook
	timeout time.Duration
	version string
}

// isCommand reports whether a strategies entry is a command strategy.
func isCommand(n ast.Node) bool { return child(n, "command") != n }

// buildCommand decodes a command strategy. Its hooks are the ones it lists
// (required); it may block wherever the event can be blocked.
func buildCommand(n ast.Node, _ *config.Config) (Strategy, Common, string, error) {
	var o commandOptions
	if err := decodeStrict(n, &o); err != nil {
		return nil, o.Common, "", err
	}
	s := &commandStrategy{timeout: DefaultCommandTimeout}
	switch c := o.Command.(type) {
	case string:
		if strings.TrimSpace(c) == "" {
			return nil, o.Common, "", at(n, "command", errors.New("command is empty"))
		}
		s.argv = []string{"sh", "-c", c}
	case []any:
		for _, a := range c {
			str, ok := a.(string)
			if !ok {
				return nil, o.Common, "", at(n, "command", fmt.Errorf("command list item %v: want a string", a))
			}
			s.argv = append(s.argv, str)
		}
		if len(s.argv) == 0 || s.argv[0] == "" {
			return nil, o.Common, "", at(n, "command", errors.New("command list is empty"))
		}
	default:
		return nil, o.Common, "", at(n, "command", errors.New("command: want a string (run with sh -c) or a list (run without a shell)"))
	}
	if o.Version != "" {
		if err := checkVersion(o.Version); err != nil {
			return nil, o.Common, "", at(n, "version", err)
		}
		s.version = o.Version
	}
	if o.Timeout < 0 || time.Duration(o.Timeout*float64(time.Second)) > MaxCommandTimeout {
		return nil, o.Common, "", at(n, "timeout", fmt.Errorf("timeout %v: want seconds between 0 and %v", o.Timeout, MaxCommandTimeout.Seconds()))
	}
	if o.Timeout > 0 {
		s.timeout = time.Duration(o.Timeout * float64(time.Second))
	}
	m, err := hookio.CompileMatcher(o.Matcher)
	if err != nil {
		return nil, o.Common, "", at(n, "matcher", err)
	}
	s.matcher = m
	if len(o.Hooks) == 0 {
		return nil, o.Common, "", at(n, "hooks", errors.New("hooks: a command strategy lists the hooks it runs on (e.g. [PreToolUse])"))
	}
	for _, h := range o.Hooks {
		hk, err := ParseHook(h)
		if err != nil {
			return nil, o.Common, "", at(n, "hooks", fmt.Errorf("hooks: %w", err))
		}
		hk.Blocks = gate.CanBlock(hk.Event)
		s.hooks = append(s.hooks, hk)
	}
	o.Common.Hooks = nil // the hooks are the strategy's own, not a narrowing
	desc := o.Description
	if desc == "" {
		desc = "command: " + strings.Join(s.argv, " ")
		if len(s.argv) == 3 && s.argv[0] == "sh" {
			desc = "command: " + s.argv[2]
		}
	}
	return s, o.Common, desc, nil
}

func (s *commandStrategy) Hooks() []Hook { return s.hooks }

// warnings are what Validate says of a usable command strategy that most
// likely does not do what it means: a matcher that selects no tool Claude
// Code knows, a timeout longer than a hook's gate budget.
func (s *commandStrategy) warnings() []string {
	var out []string
	if msg := s.matcher.Unmatched(); msg != "" {
		out = append(out, msg)
	}
	for _, h := range s.hooks {
		if b := hookio.GateBudget(h.Event); s.timeout > b {
			out = append(out, fmt.Sprintf("timeout %v cannot fit %s's budget of %v (inside the %d s timeout spcstr init registers): "+
				"a command still running then has failed, and the fail mode decides", s.timeout, h.Event, b, hookio.Timeout(h.Event)))
		}
		if h.Tool == "" || h.Tool == "*" {
			continue
		}
		if m, err := hookio.CompileMatcher(h.Tool); err == nil {
			if msg := m.Unmatched(); msg != "" {
				out = append(out, "hook "+h.String()+": "+msg)
			}
		}
	}
	return out
}

// checkVersion accepts a short printable version label ("1.2.0", "2024-05-01").
func checkVersion(v string) error {
	if len(v) > 64 {
		return fmt.Errorf("version: at most 64 characters")
	}
	for _, r := range v {
		if r <= ' ' || r == 0x7f || r > '~' {
			return fmt.Errorf("version %q: want letters, digits and punctuation, no spaces (e.g. 1.2.0)", v)
		}
	}
	return nil
}

// matches applies the matcher to a tool event's tool.
func (s *commandStrategy) matches(in *gate.Input) bool {
	if !isToolEvent(in.Name) || in.Event == nil {
		return true
	}
	return s.matcher.Match(in.Event.ToolName)
}

// Evaluate runs the command and reads its answer. A timeout, a crash (an
// exit other than 0 and 2, a signal), output over MaxCommandStdout or an
// answer that is not JSON is an error: the strategy could not decide, and
// its fail_mode says what happens.
func (s *commandStrategy) Evaluate(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if !s.matches(in) {
		return nil, nil
	}
	if !in.RunCommands {
		return []gate.Verdict{s.notRun(in)}, nil
	}
	payload := in.Event.Raw
	if len(payload) == 0 {
		return nil, errors.New("no payload to give the command")
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Dir = in.Layout.Root
	cmd.Stdin = bytes.NewReader(payload)
	env := append(os.Environ(), "CLAUDE_PROJECT_DIR="+in.Layout.Root)
	if in.Replay {
		env = append(env, "SPCSTR_REPLAY=1")
	}
	cmd.Env = env
	stdout := &cappedOutput{max: MaxCommandStdout}
	stderr := &cappedOutput{max: MaxCommandStderr}
	// The answer counts once the command exits (runCommand).
	err := runCommand(ctx, cmd, stdout, stderr)
	if errors.Is(err, errTimedOut) {
		return nil, fmt.Errorf("command timed out after %v", s.timeout)
	}
	code := 0
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() < 0 {
			return nil, fmt.Errorf("command crashed: %w", err)
		}
		code = exit.ExitCode()
	}
	switch code {
	case 0:
	case 2:
		reason := strings.TrimSpace(stderr.String())
		if reason == "" {
			reason = "blocked by a command strategy (exit 2, no reason given)"
		}
		dec := gate.Block
		if in.Name == hookio.PreToolUse {
			dec = gate.Deny
		}
		if !gate.CanBlock(in.Name) {
			return []gate.Verdict{{SystemMessage: reason, Reason: "exit-2"}}, nil
		}
		return []gate.Verdict{{Decision: dec, Reason: "exit-2", Message: reason}}, nil
	default:
		return nil, fmt.Errorf("command crashed: exit status %d: %s", code, firstLine(stderr.String()))
	}
	if stdout.over {
		return nil, fmt.Errorf("command wrote more than %d bytes on stdout", MaxCommandStdout)
	}
	return parseAnswer(in.Name, bytes.TrimSpace(stdout.buf.Bytes()))
}

// parseAnswer reads an exit-0 answer: empty (nothing to say), JSON in
// Claude Code's hook output format, or, for SessionStart and
// UserPromptSubmit, plain text that Claude Code adds as context. Anything
// else is garbage.
func parseAnswer(event string, out []byte) ([]gate.Verdict, error) {
	if len(out) == 0 {
		return nil, nil
	}
	if out[0] != '{' {
		if event == hookio.SessionStart || event == hookio.UserPromptSubmit {
			return []gate.Verdict{{Context: string(out)}}, nil
		}
		return nil, fmt.Errorf("command answered something that is not JSON: %q", cut(out, 80))
	}
	// Keys are read exactly, as Claude Code reads them (hookio.ReadAnswer).
	a, err := hookio.ReadAnswer(out)
	if err != nil {
		return nil, fmt.Errorf("command answered: %w", err)
	}
	v := gate.Verdict{SystemMessage: a.SystemMessage}
	deny := gate.Block
	if event == hookio.PreToolUse {
		deny = gate.Deny
	}
	switch a.Decision {
	case "", "approve", "allow":
	case "block", "deny":
		v.Decision, v.Reason, v.Message = deny, "decision:block", a.Reason
	default:
		return nil, fmt.Errorf("command answered decision %q", a.Decision)
	}
	if h := a.HookSpecificOutput; h != nil {
		v.Context = h.AdditionalContext
		if event == hookio.PreToolUse {
			switch h.PermissionDecision {
			case "":
			case hookio.PermissionDeny:
				v.Decision, v.Reason, v.Message = gate.Deny, "permission:deny", h.PermissionDecisionReason
			case hookio.PermissionAsk:
				if v.Decision != gate.Deny {
					v.Decision, v.Reason, v.Message = gate.Ask, "permission:ask", h.PermissionDecisionReason
				}
			case hookio.PermissionAllow:
				// Recorded; never passed on: spcstr does not skip Claude
				// Code's permission prompt for a gate.
				if v.Decision == "" {
					v.Decision, v.Reason = gate.Allow, "permission:allow"
				}
			default:
				return nil, fmt.Errorf("command answered permissionDecision %q", h.PermissionDecision)
			}
		}
	}
	if (v.Decision == gate.Deny || v.Decision == gate.Block) && v.Message == "" {
		v.Message = "blocked by a command strategy (no reason given)"
	}
	if v.Decision == "" && v.Context == "" && v.SystemMessage == "" {
		v.Decision, v.Reason = gate.Allow, "answered"
	}
	return []gate.Verdict{v}, nil
}

// cappedOutput is a writer that keeps its first max bytes and counts the rest,
// so that a command's output never grows the hook's memory.
type cappedOutput struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *cappedOutput) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
			c.over = true
		} else {
			c.buf.Write(p)
		}
	} else if len(p) > 0 {
		c.over = true
	}
	return len(p), nil
}

func (c *cappedOutput) String() string { return c.buf.String() }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return cut([]byte(s), 200)
}

func cut(b []byte, n int) string {
	if len(b) > n {
		return string(termtext.Cut(b, n)) + "…"
	}
	return string(b)
}

// ReasonNotRun is the reason of a command strategy's verdict where
// project-defined commands may not run (gate.Input.RunCommands off): it
// allows, and its message says what it would have asked.
const ReasonNotRun = "not-run"

// notRun is the verdict of a command not run: the command and the hook it
// would have been asked about.
func (s *commandStrategy) notRun(in *gate.Input) gate.Verdict {
	what := in.Name
	if isToolEvent(in.Name) && in.Event != nil && in.Event.ToolName != "" {
		what += " (" + in.Event.ToolName + ")"
	}
	quoted := make([]string, len(s.argv))
	for i, a := range s.argv {
		quoted[i] = strconv.Quote(a)
	}
	return gate.Verdict{Decision: gate.Allow, Reason: ReasonNotRun,
		Message: "would ask " + strings.Join(quoted, " ") + " about " + what + " with its payload on stdin; not run " +
			"(spcstr runs a project's commands only from Claude Code's hooks; --run-commands runs them here)"}
}
