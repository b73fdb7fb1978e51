package strategy

import (
	"context"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/requirements"
)

type sessionReminderOptions struct {
	Common `yaml:",inline"`
	// Text is the static reminder.
	Text string `yaml:"text"`
	// File holds the static reminder instead (relative to the project
	// root, read at each prompt, at most MaxReminderBytes).
	File string `yaml:"file"`
	// Dynamic adds the active feedback loop's iteration and the unmet
	// requirements when there are any (default true).
	Dynamic *bool `yaml:"dynamic"`
}

// MaxReminderBytes bounds the reminder file: a reminder is short by design.
const MaxReminderBytes = 8 << 10

// sessionReminder reminds, and does not lecture: a short static text with
// every prompt the user types, plus the state Claude should keep in mind
// only while it is relevant.
type sessionReminder struct{ o sessionReminderOptions }

func buildSessionReminder(n ast.Node, _ *config.Config) (Strategy, Common, error) {
	var o sessionReminderOptions
	if err := decodeStrict(n, &o); err != nil {
		return nil, o.Common, err
	}
	if o.Text != "" && o.File != "" {
		return nil, o.Common, at(n, "file", fmt.Errorf("text and file: set one of them"))
	}
	if o.File != "" {
		if _, ok := inside("/", o.File); !ok {
			return nil, o.Common, at(n, "file", fmt.Errorf("file %q: want a file inside the project", o.File))
		}
	}
	return &sessionReminder{o: o}, o.Common, nil
}

func (s *sessionReminder) Hooks() []Hook { return []Hook{{Event: hookio.UserPromptSubmit}} }

func (s *sessionReminder) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if strings.HasPrefix(strings.TrimSpace(in.Event.Prompt), "<task-notification>") {
		return nil, nil // a background agent's result, not the user
	}
	var parts []string
	static := strings.TrimSpace(s.o.Text)
	if s.o.File != "" {
		data, err := readInProject(in.Layout.Root, s.o.File, MaxReminderBytes)
		if err != nil {
			return nil, fmt.Errorf("session-reminder file: %w", err)
		}
		static = strings.TrimSpace(plain(string(data)))
	}
	if static != "" {
		parts = append(parts, "<session-reminder>\n"+static+"\n</session-reminder>")
	}
	if on(s.o.Dynamic) {
		if line := loopLine(in); line != "" {
			parts = append(parts, "<active-feedback-loop>"+line+"</active-feedback-loop>")
		}
		if unmet := unmetRequirements(in); len(unmet) > 0 {
			parts = append(parts, "<unmet-requirements>"+strings.Join(unmet, ", ")+"</unmet-requirements>")
		}
	}
	if len(parts) == 0 {
		return nil, nil
	}
	return []gate.Verdict{{Context: strings.Join(parts, "\n")}}, nil
}

// loopLine is the active feedback loop in one line ("Iteration: 2/5;
// next: backend review"), or "" when no loop is enforcing.
func loopLine(in *gate.Input) string {
	st, err := feedback.Load(in.Layout, in.Event.SessionID)
	if err != nil || st == nil || st.State != feedback.StateActive {
		return ""
	}
	line := fmt.Sprintf("Iteration: %d/%d", max(st.Iteration, 1), st.MaxIterations)
	var next []string
	for _, d := range st.Domains {
		if d.Next != "" {
			next = append(next, d.Name+" "+strings.ReplaceAll(d.Next, "_", " "))
		}
	}
	if len(next) > 0 {
		line += "; next: " + strings.Join(next, ", ")
	}
	return line
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
