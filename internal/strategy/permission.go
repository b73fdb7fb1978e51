package strategy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/pathglob"
	"github.com/dylan-gluck/spcstr/internal/requirements"
)

// NamePermissionPolicy is the permission-policy strategy: it answers
// Claude Code's PermissionRequest (the seed's "PermissionRequest
// auto-approve" to-do) from rules, dry-run until the user turns it on.
const NamePermissionPolicy = "permission-policy"

type permissionPolicyOptions struct {
	Common `yaml:",inline"`
	// Allow rules approve a request without the dialog; Deny rules refuse
	// it. Any matching deny wins over every allow.
	Allow []permissionRule `yaml:"allow"`
	Deny  []permissionRule `yaml:"deny"`
}

// permissionRule matches a request by tool, path and command; a rule
// needs at least one of them, and every one it sets must match.
type permissionRule struct {
	// Tool is one tool name or a list ("*" or unset: any tool).
	Tool toolNames `yaml:"tool"`
	// Paths are globs (pathglob: "**", "dir/", bare names anywhere) over
	// the file the call names (tool_input file_path, notebook_path or
	// path), relative to the project root. A call naming no file does not
	// match a rule with paths.
	Paths []string `yaml:"paths"`
	// Command is a pattern searched in Bash's command, with the semantics
	// of requirements' command_pattern (Python's re, re.search).
	Command string `yaml:"command"`
	// Message is what Claude reads when a deny rule refuses a call.
	Message string `yaml:"message"`

	re requirements.CommandMatcher
}

// toolNames is one tool name or a list.
type toolNames []string

// UnmarshalYAML accepts a string or a list of strings.
func (t *toolNames) UnmarshalYAML(b []byte) error {
	var one string
	if err := yaml.Unmarshal(b, &one); err == nil {
		*t = toolNames{one}
		return nil
	}
	var many []string
	if err := yaml.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("tool: want a tool name or a list of names: %w", err)
	}
	*t = many
	return nil
}

// pathInput is tool_input.path (Grep, Glob), or "".
func pathInput(raw json.RawMessage) string {
	var in struct {
		Path any `json:"path"`
	}
	_ = json.Unmarshal(raw, &in)
	p, _ := in.Path.(string)
	return p
}

// shellControl are the characters that chain, pipe, substitute or
// redirect in a shell command line: an allow rule's command pattern
// approves only a command without any of them, so "go test ./... && rm -rf
// ~" is not approved by a rule written for "go test".
const shellControl = ";&|`$()<>\n\r"

type permissionPolicy struct{ o permissionPolicyOptions }

func buildPermissionPolicy(n ast.Node, _ *config.Config) (Strategy, Common, error) {
	var o permissionPolicyOptions
	if err := decodeStrict(n, &o); err != nil {
		return nil, o.Common, err
	}
	// Dry-run first: the rules are only recorded until the user sets
	// dry_run: false after reading what they would have done.
	if child(n, "dry_run") == n {
		o.DryRun = true
	}
	if len(o.Allow)+len(o.Deny) == 0 {
		return nil, o.Common, errors.New("set allow or deny rules")
	}
	for _, list := range []struct {
		key   string
		rules []permissionRule
	}{{"allow", o.Allow}, {"deny", o.Deny}} {
		for i := range list.rules {
			r := &list.rules[i]
			if len(r.Tool) == 0 && len(r.Paths) == 0 && r.Command == "" {
				return nil, o.Common, at(n, list.key, fmt.Errorf("%s[%d]: set tool, paths or command", list.key, i))
			}
			for _, p := range r.Paths {
				if _, err := filepath.Match(strings.ReplaceAll(p, "**", "*"), ""); err != nil {
					return nil, o.Common, at(n, list.key, fmt.Errorf("%s[%d]: bad glob %q: %w", list.key, i, p, err))
				}
			}
			if r.Command != "" {
				re, err := requirements.CompileCommandPattern(r.Command)
				if err != nil {
					return nil, o.Common, at(n, list.key, fmt.Errorf("%s[%d]: command %q: %w", list.key, i, r.Command, err))
				}
				r.re = re
			}
		}
	}
	return &permissionPolicy{o: o}, o.Common, nil
}

func (s *permissionPolicy) Hooks() []Hook {
	return []Hook{{Event: hookio.PermissionRequest, Tool: "*", Blocks: true}}
}

// Evaluate answers one PermissionRequest: a deny rule that matches denies
// (its message for Claude), else an allow rule that matches approves;
// otherwise it says nothing and Claude Code asks the user. Every answer is
// a decision (reason "deny:<i>" or "allow:<i>", the rule's index).
func (s *permissionPolicy) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	ev := in.Event
	f := ev.Input()
	file := firstNonEmpty(f.FilePath, f.NotebookPath, pathInput(ev.ToolInput))
	if file != "" {
		if !filepath.IsAbs(file) {
			file = filepath.Join(firstNonEmpty(ev.Cwd, in.Layout.Root), file)
		}
		file = pathglob.Rel(in.Layout.Root, file)
	}
	what := plain(ev.ToolName)
	if f.Command != "" {
		what += ": " + clipText(strings.ReplaceAll(plain(f.Command), "\n", " "), 200)
	} else if file != "" {
		what += " " + plain(file)
	}
	for i, r := range s.o.Deny {
		if r.matches(ev.ToolName, file, f.Command, false) {
			msg := "spcstr permission-policy denied " + what + " (deny rule " + itoa(i) + ")."
			if r.Message != "" {
				msg += " " + plain(r.Message)
			}
			return []gate.Verdict{{Decision: gate.Deny, Reason: "deny:" + itoa(i), Message: msg}}, nil
		}
	}
	for i, r := range s.o.Allow {
		if r.matches(ev.ToolName, file, f.Command, true) {
			return []gate.Verdict{{Decision: gate.Allow, Grant: true, Reason: "allow:" + itoa(i),
				Message: "spcstr permission-policy allowed " + what + " (allow rule " + itoa(i) + ")."}}, nil
		}
	}
	return nil, nil
}

// matches reports whether a request for tool (on file, running command)
// matches the rule. For an allow rule, a command with shell control
// characters never matches a command pattern.
func (r permissionRule) matches(tool, file, command string, allow bool) bool {
	if len(r.Tool) > 0 && !slices.Contains(r.Tool, "*") && !slices.Contains(r.Tool, tool) {
		return false
	}
	if len(r.Paths) > 0 {
		if file == "" || !matchAny(r.Paths, file) {
			return false
		}
	}
	if r.re != nil {
		if command == "" || (allow && strings.ContainsAny(command, shellControl)) || !r.re.MatchString(command) {
			return false
		}
	}
	return true
}
