package strategy

import (
	"context"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/requirements"
)

type sessionReminderOptions struct {
	Common `yaml:",inline"`
	// Text is the static reminder; unset, the hooks architecture's skills
	// reminder (DefaultReminder); "" turns the static part off.
	Text *string `yaml:"text"`
	// File holds the static reminder instead (relative to the project
	// root, read at each prompt, at most MaxReminderBytes).
	File string `yaml:"file"`
	// Dynamic adds the unmet requirements when there are any (default
	// true). The active feedback loop's line comes from the loop itself.
	Dynamic *bool `yaml:"dynamic"`
	// SessionStart injects a using-skills context at every SessionStart
	// (startup, resume, clear, compact), as the hooks architecture's
	// session-start hook does: the content of SessionStartFile, else the
	// static reminder.
	SessionStart bool `yaml:"session_start"`
	// SessionStartFile is the using-skills document (relative to the
	// project root, at most MaxUsingSkillsBytes; default
	// .claude/skills/using-skills/SKILL.md).
	SessionStartFile string `yaml:"session_start_file"`
}

// MaxReminderBytes bounds the reminder file: a reminder is short by design.
const MaxReminderBytes = 8 << 10

// MaxUsingSkillsBytes bounds the using-skills document injected at
// SessionStart.
const MaxUsingSkillsBytes = 32 << 10

// DefaultUsingSkillsFile is session_start_file's default.
const DefaultUsingSkillsFile = ".claude/skills/using-skills/SKILL.md"

// DefaultReminder is the hooks architecture's skills-usage reminder, the
// static text when `text` and `file` are unset.
const DefaultReminder = "- **Core skills** (in `.claude/skills/`): Invoke via Skill tool\n" +
	"- **Gateway Skills** (in `.claude/skills/`): Invoke via Skill tool\n\n" +
	"**ALWAYS read your gateway skills to locate task relevant skills.**\n\n" +
	"After invoking the gateway, use its routing tables to find and Read library skills:\n" +
	"- **Library skills** (in `.claude/skill-library/`): Load via Read tool\n\n" +
	"**Invoke relevant skills BEFORE any response or action.**"

// sessionReminder reminds, and does not lecture: a short static text with
// every prompt the user types, plus the state Claude should keep in mind
// only while it is relevant.
type sessionReminder struct{ o sessionReminderOptions }

func buildSessionReminder(n ast.Node, _ *config.Config) (Strategy, Common, error) {
	var o sessionReminderOptions
	if err := decodeStrict(n, &o); err != nil {
		return nil, o.Common, err
	}
	if o.Text != nil && o.File != "" {
		return nil, o.Common, at(n, "file", fmt.Errorf("text and file: set one of them"))
	}
	if o.File != "" {
		if _, ok := inside("/", o.File); !ok {
			return nil, o.Common, at(n, "file", fmt.Errorf("file %q: want a file inside the project", o.File))
		}
	}
	if o.SessionStartFile != "" {
		if _, ok := inside("/", o.SessionStartFile); !ok {
			return nil, o.Common, at(n, "session_start_file", fmt.Errorf("session_start_file %q: want a file inside the project", o.SessionStartFile))
		}
	} else {
		o.SessionStartFile = DefaultUsingSkillsFile
	}
	return &sessionReminder{o: o}, o.Common, nil
}

func (s *sessionReminder) Hooks() []Hook {
	hooks := []Hook{{Event: hookio.UserPromptSubmit}}
	if s.o.SessionStart {
		hooks = append(hooks, Hook{Event: hookio.SessionStart})
	}
	return hooks
}

// static returns the static reminder: the file's, the text, or the
// default.
func (s *sessionReminder) static(in *gate.Input) (string, error) {
	if s.o.File != "" {
		data, err := readInProject(in.Layout.Root, s.o.File, MaxReminderBytes)
		if err != nil {
			return "", fmt.Errorf("session-reminder file: %w", err)
		}
		return strings.TrimSpace(plain(string(data))), nil
	}
	if s.o.Text != nil {
		return strings.TrimSpace(*s.o.Text), nil
	}
	return DefaultReminder, nil
}

func (s *sessionReminder) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if in.Name == hookio.SessionStart {
		return s.sessionStart(in)
	}
	if strings.HasPrefix(strings.TrimSpace(in.Event.Prompt), "<task-notification>") {
		return nil, nil // a background agent's result, not the user
	}
	var parts []string
	static, err := s.static(in)
	if err != nil {
		return nil, err
	}
	if static != "" {
		parts = append(parts, "<session-reminder>\n"+static+"\n</session-reminder>")
	}
	// The active feedback loop is not repeated here: the loop injects its
	// own <active-feedback-loop> line with every prompt, once.
	if on(s.o.Dynamic) {
		if unmet := unmetRequirements(in); len(unmet) > 0 {
			parts = append(parts, "<unmet-requirements>"+strings.Join(unmet, ", ")+"</unmet-requirements>")
		}
	}
	if len(parts) == 0 {
		return nil, nil
	}
	return []gate.Verdict{{Context: strings.Join(parts, "\n")}}, nil
}

// sessionStart injects the using-skills context: the using-skills
// document when the project has one, else the static reminder.
func (s *sessionReminder) sessionStart(in *gate.Input) ([]gate.Verdict, error) {
	p, _ := inside(in.Layout.Root, s.o.SessionStartFile)
	data, err := readRegular(p, MaxUsingSkillsBytes)
	text := strings.TrimSpace(plain(string(data)))
	switch {
	case err == nil:
	case isNotExist(err):
		if text, err = s.static(in); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("session-reminder session_start_file: %w", err)
	}
	if text == "" {
		return nil, nil
	}
	return []gate.Verdict{{Reason: "using-skills", Context: "<using-skills>\n" + text + "\n</using-skills>"}}, nil
}

// unmetRequirements lists the enabled requirements that a tool call of
// this session triggered and nothing satisfied yet: what Stop would block
// on.
func unmetRequirements(in *gate.Input) []string {
	if !requirements.Configured(in.Layout.Root) {
		return nil
	}
	p, err := requirements.Open(in.Layout.Root, in.Getenv)
	if err != nil {
		return nil
	}
	list, err := p.Statuses(in.Event.SessionID)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range list {
		if r.Enabled && r.Triggered && !r.Satisfied {
			out = append(out, r.Name)
		}
	}
	return out
}
