package strategy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/jsonfile"
)

// EscalationContextFile is the file, in the session's folder, that the
// advisor commands read (also on their stdin).
const EscalationContextFile = "escalation-context.json"

// maxAdviceBytes bounds what one advisor command may answer.
const maxAdviceBytes = 16 << 10

// DefaultAdvisorTimeout is how long one advisor command may take.
const DefaultAdvisorTimeout = 60 * time.Second

type escalationAdvisorOptions struct {
	Common `yaml:",inline"`
	// Commands are shell commands tried in order (a local model first,
	// then a hosted one...). Each reads the escalation context as JSON on
	// stdin; the first that exits 0 with an answer on stdout within
	// Timeout wins. spcstr ships none: no command, no advisor.
	Commands []string `yaml:"commands"`
	// Timeout bounds each command: seconds (90) or a duration ("90s").
	Timeout duration `yaml:"timeout"`
}

// duration is a YAML duration in seconds (a number) or Go's syntax ("90s").
type duration time.Duration

// UnmarshalYAML accepts 90, 2.5 or "90s". Its errors point at the value
// in config.yaml.
func (d *duration) UnmarshalYAML(n ast.Node) error {
	if err := d.parse(n); err != nil {
		return config.NodeError(n, err)
	}
	return nil
}

func (d *duration) parse(n ast.Node) error {
	var s string
	if err := yaml.NodeToValue(n, &s); err != nil {
		return err
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		*d = duration(f * float64(time.Second))
	} else if v, err := time.ParseDuration(s); err == nil {
		*d = duration(v)
	} else {
		return fmt.Errorf("%q: want seconds (90) or a duration (\"90s\")", s)
	}
	if *d <= 0 {
		return fmt.Errorf("%q: want a positive duration", s)
	}
	return nil
}

// escalationAdvisor asks the user's advisor commands about an escalation
// (a gate gave up blocking). The recorder calls Advise with the escalated
// verdicts after every gate answered; the answer goes to the user with the
// escalation message, and to Claude with the next prompt.
type escalationAdvisor struct {
	o       escalationAdvisorOptions
	timeout time.Duration
}

func buildEscalationAdvisor(n ast.Node, _ *config.Config) (Strategy, Common, error) {
	var o escalationAdvisorOptions
	if err := decodeStrict(n, &o); err != nil {
		return nil, o.Common, err
	}
	for i, c := range o.Commands {
		if strings.TrimSpace(c) == "" {
			return nil, o.Common, at(n, "commands", fmt.Errorf("commands[%d]: empty command", i))
		}
	}
	t := time.Duration(o.Timeout)
	if t == 0 {
		t = DefaultAdvisorTimeout
	}
	return &escalationAdvisor{o: o, timeout: t}, o.Common, nil
}

// The advisor itself runs when a gate escalates (Advise); its hook is the
// next prompt, where Claude gets the answer and the escalation ends, and
// SessionEnd, which ends it too.
func (s *escalationAdvisor) Hooks() []Hook {
	return []Hook{{Event: hookio.UserPromptSubmit}, {Event: hookio.SessionEnd}}
}

// eaState is escalation-advisor's namespace.
type eaState struct {
	// Last identifies the escalation last advised on, so that one
	// escalation runs the commands once.
	Last string `json:"last,omitempty"`
	// Pending is an answer Claude has not seen yet.
	Pending string `json:"pending,omitempty"`
}

// Evaluate hands Claude, with the next prompt, the advice it has not seen.
// The user's prompt (not a background agent's notification) ends the
// escalation, as it closes an escalated feedback loop, and so does the end
// of the session: escalation-context.json is removed then.
func (s *escalationAdvisor) Evaluate(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if in.Name == hookio.SessionEnd || !strings.HasPrefix(strings.TrimSpace(in.Event.Prompt), "<task-notification>") {
		if err := removeEscalationContext(in); err != nil {
			return nil, err
		}
	}
	if in.Name == hookio.SessionEnd {
		return nil, nil
	}
	var st eaState
	var advice string
	err := updateNS(ctx, in, NameEscalationAdvisor, &st, func() bool {
		advice, st.Pending = st.Pending, ""
		return advice != ""
	})
	if err != nil || advice == "" {
		return nil, err
	}
	return []gate.Verdict{{Context: "<escalation-advice>\nAn external advisor analysed the last escalation:\n" + advice + "\n</escalation-advice>"}}, nil
}

// removeEscalationContext removes the session's escalation-context.json,
// if any: the escalation it describes is over.
func removeEscalationContext(in *gate.Input) error {
	dir, err := in.Layout.SessionDir(in.Event.SessionID)
	if err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(dir, EscalationContextFile)); err != nil && !isNotExist(err) {
		return fmt.Errorf("escalation context: %w", err)
	}
	return nil
}

// EscalationContext is what the advisor commands read.
type EscalationContext struct {
	SessionID   string            `json:"session_id"`
	At          time.Time         `json:"at"`
	Hook        string            `json:"hook"`
	ProjectDir  string            `json:"project_dir"`
	Escalations []EscalationEntry `json:"escalations"`
	// Feedback is the feedback loop: iteration, per-domain phases and
	// failure counters, the last failure, and what was tried (its history).
	Feedback *EscalationLoop `json:"feedback,omitempty"`
}

// EscalationEntry is one gate's escalation.
type EscalationEntry struct {
	Source  string `json:"source"`
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
}

// EscalationLoop is the feedback loop part of the context.
type EscalationLoop struct {
	State         string               `json:"state"`
	Iteration     int                  `json:"iteration"`
	MaxIterations int                  `json:"max_iterations"`
	Domains       []EscalationDomain   `json:"domains"`
	LastFailure   *feedback.Result     `json:"last_failure,omitempty"`
	Escalation    *feedback.Escalation `json:"escalation,omitempty"`
	Tried         []feedback.Result    `json:"tried,omitempty"`
	Limits        feedback.Limits      `json:"limits"`
}

// EscalationDomain is one domain of the loop: its phases, the next one,
// its consecutive failures and the files changed.
type EscalationDomain struct {
	Name     string                    `json:"name"`
	Next     string                    `json:"next,omitempty"`
	Phases   map[string]feedback.Phase `json:"phases"`
	Failures feedback.Counters         `json:"consecutive_failures"`
	Files    []string                  `json:"files,omitempty"`
}

// maxTried bounds the history the context carries.
const maxTried = 20

// Advise runs when verdicts escalated (the recorder's pipeline calls it
// after every gate answered). Without commands it does nothing. It writes
// the escalation context, runs the commands in order, and returns the
// first answer as a system message for the user; Claude gets it with the
// next prompt.
func (s *escalationAdvisor) Advise(ctx context.Context, in *gate.Input, escalated []gate.Verdict) ([]gate.Verdict, error) {
	if len(s.o.Commands) == 0 || len(escalated) == 0 {
		return nil, nil
	}
	ec := EscalationContext{SessionID: in.Event.SessionID, At: in.Now, Hook: in.Name, ProjectDir: in.Layout.Root}
	var keys []string
	for _, v := range escalated {
		ec.Escalations = append(ec.Escalations, EscalationEntry{Source: v.Source, Reason: v.Reason, Message: firstNonEmpty(v.Message, v.SystemMessage)})
		keys = append(keys, v.Source+"="+v.Reason)
	}
	if st, err := feedback.Load(in.Layout, in.Event.SessionID); err == nil && st != nil {
		l := &EscalationLoop{State: st.State, Iteration: st.Iteration, MaxIterations: st.MaxIterations,
			LastFailure: st.LastFailure, Escalation: st.Escalation, Limits: st.Limits}
		for _, d := range st.Domains {
			ed := EscalationDomain{Name: d.Name, Next: d.Next, Phases: map[string]feedback.Phase{}, Failures: d.Failures, Files: d.Files}
			for _, p := range d.Phases {
				ed.Phases[p.Name] = p.Phase
			}
			l.Domains = append(l.Domains, ed)
		}
		if st.Loop != nil {
			h := st.Loop.History
			l.Tried = h[max(0, len(h)-maxTried):]
		}
		ec.Feedback = l
		keys = append(keys, fmt.Sprintf("iteration=%d", st.Iteration))
	}
	key := strings.Join(keys, ";")
	fresh := false
	var st eaState
	if err := updateNS(ctx, in, NameEscalationAdvisor, &st, func() bool {
		if st.Last == key {
			return false
		}
		st.Last, fresh = key, true
		return true
	}); err != nil {
		return nil, err
	}
	if !fresh {
		return nil, nil // already advised on this escalation
	}
	dir, err := in.Layout.SessionDir(in.Event.SessionID)
	if err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(ec, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := jsonfile.Write(filepath.Join(dir, EscalationContextFile), append(data, '\n')); err != nil {
		return nil, fmt.Errorf("escalation context: %w", err)
	}
	if in.Replay || !in.RunCommands { // a dry-run replay runs no advisor
		return []gate.Verdict{{Decision: gate.Allow, Reason: fmt.Sprintf("would-advise:%d-commands", len(s.o.Commands))}}, nil
	}
	var failures []string
	for i, c := range s.o.Commands {
		answer, err := runAdvisor(ctx, c, data, in.Layout.Root, s.timeout)
		if err != nil {
			failures = append(failures, fmt.Sprintf("commands[%d]: %v", i, err))
			continue
		}
		if err := updateNS(ctx, in, NameEscalationAdvisor, &st, func() bool {
			st.Pending = answer
			return true
		}); err != nil {
			return nil, err
		}
		return []gate.Verdict{{Decision: gate.Allow, Reason: fmt.Sprintf("advised:commands[%d]", i),
			SystemMessage: "spcstr escalation-advisor:\n" + answer}}, nil
	}
	return []gate.Verdict{{Decision: gate.Allow, Reason: "no-advice",
		SystemMessage: "spcstr escalation-advisor: no command answered (" + strings.Join(failures, "; ") + ")"}}, nil
}

// runAdvisor runs one command with the context on stdin and returns its
// answer: stdout, control characters dropped, at most maxAdviceBytes.
func runAdvisor(ctx context.Context, command string, input []byte, dir string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(input)
	var out capped
	out.max = maxAdviceBytes
	err := runCommand(ctx, cmd, &out, io.Discard)
	if errors.Is(err, errTimedOut) {
		return "", fmt.Errorf("no answer within %s", timeout)
	}
	if err != nil {
		return "", err
	}
	answer := strings.TrimSpace(plain(strings.ToValidUTF8(out.String(), "")))
	if answer == "" {
		return "", fmt.Errorf("empty answer")
	}
	return answer, nil
}

// capped keeps the first max bytes written to it and drops the rest.
type capped struct {
	bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
