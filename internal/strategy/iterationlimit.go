package strategy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/yamlsafe"
)

type iterationLimitOptions struct {
	Common `yaml:",inline"`
	// MaxIterations overrides intra_task.max_iterations of the limits
	// file (default 10).
	MaxIterations int `yaml:"max_iterations"`
	// LimitsFile is the orchestration limits file (default: the feedback
	// loop's, .claude/config/orchestration-limits.yaml).
	LimitsFile string `yaml:"limits_file"`
	// CompletionMarker, when set, is the text an agent's last message must
	// contain for its task to count as done ("TASK_COMPLETE").
	CompletionMarker string `yaml:"completion_marker"`
}

// DefaultMaxIterations is intra_task.max_iterations when nothing sets it.
const DefaultMaxIterations = 10

// iterationLimit is the intra-task loop: an agent (the main one at Stop,
// a subagent at SubagentStop) whose task is not done is sent back to work,
// one iteration per blocked stop, until the limit; there it escalates:
// the stop goes through and the user is told.
type iterationLimit struct {
	o          iterationLimitOptions
	limitsFile string
}

func buildIterationLimit(n ast.Node, cfg *config.Config) (Strategy, Common, error) {
	var o iterationLimitOptions
	if err := decodeStrict(n, &o); err != nil {
		return nil, o.Common, err
	}
	if o.MaxIterations < 0 {
		return nil, o.Common, at(n, "max_iterations", fmt.Errorf("max_iterations %d: want a positive number", o.MaxIterations))
	}
	lf := o.LimitsFile
	if lf == "" {
		lf = feedback.DefaultLimitsFile
		if c, err := feedback.LoadConfig(cfg); err == nil && c.LimitsFile != "" {
			lf = c.LimitsFile
		}
	}
	if _, ok := inside("/", lf); !ok {
		return nil, o.Common, at(n, "limits_file", fmt.Errorf("limits_file %q: want a file inside the project", lf))
	}
	return &iterationLimit{o: o, limitsFile: lf}, o.Common, nil
}

func (s *iterationLimit) Hooks() []Hook {
	return []Hook{{Event: hookio.Stop, Blocks: true}, {Event: hookio.SubagentStop, Blocks: true}, {Event: hookio.UserPromptSubmit}}
}

// ilState is iteration-limit's namespace: iterations per agent ("main" or
// an agent id).
type ilState struct {
	Iterations map[string]int  `json:"iterations,omitempty"`
	Escalated  map[string]bool `json:"escalated,omitempty"`
}

// maxIterations reads intra_task.max_iterations (a missing file or key
// keeps the default; a file that does not parse is an error).
func (s *iterationLimit) maxIterations(root string) (int, error) {
	if s.o.MaxIterations > 0 {
		return s.o.MaxIterations, nil
	}
	data, err := readInProject(root, s.limitsFile, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultMaxIterations, nil
	}
	if err != nil {
		return 0, err
	}
	var doc struct {
		IntraTask struct {
			MaxIterations int `yaml:"max_iterations"`
		} `yaml:"intra_task"`
	}
	if err := yamlsafe.Unmarshal(data, &doc); err != nil {
		return 0, fmt.Errorf("%s: %w", s.limitsFile, err)
	}
	if doc.IntraTask.MaxIterations > 0 {
		return doc.IntraTask.MaxIterations, nil
	}
	return DefaultMaxIterations, nil
}

func (s *iterationLimit) Evaluate(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	key := "main"
	if in.Name == hookio.SubagentStop {
		if in.Event.AgentID == "" {
			return nil, nil
		}
		key = in.Event.AgentID
	}
	var st ilState
	if in.Name == hookio.UserPromptSubmit {
		// The user speaks: a new task for the main agent.
		return nil, updateNS(ctx, in, NameIterationLimit, &st, func() bool {
			if st.Iterations["main"] == 0 && !st.Escalated["main"] {
				return false
			}
			delete(st.Iterations, "main")
			delete(st.Escalated, "main")
			return true
		})
	}
	open := s.openWork(in)
	if len(open) == 0 {
		return nil, updateNS(ctx, in, NameIterationLimit, &st, func() bool {
			if st.Iterations[key] == 0 {
				return false
			}
			delete(st.Iterations, key)
			return true
		})
	}
	limit, err := s.maxIterations(in.Layout.Root)
	if err != nil {
		return nil, err
	}
	var v gate.Verdict
	err = updateNS(ctx, in, NameIterationLimit, &st, func() bool {
		if st.Iterations == nil {
			st.Iterations = map[string]int{}
		}
		if st.Escalated == nil {
			st.Escalated = map[string]bool{}
		}
		if st.Escalated[key] {
			v = gate.Verdict{Decision: gate.Allow, Reason: "escalated:iteration-limit"}
			return false
		}
		if st.Iterations[key] >= limit {
			st.Escalated[key] = true
			v = gate.Verdict{Decision: gate.Allow, Reason: fmt.Sprintf("escalated:iteration-limit:%d", limit),
				SystemMessage: fmt.Sprintf("spcstr iteration-limit: %s iterated %d times on its task without finishing, "+
					"so this stop is allowed. Still open: %s. Decide how to go on.", who(in), limit, strings.Join(open, "; "))}
			return true
		}
		st.Iterations[key]++
		v = gate.Verdict{Decision: gate.Block, Reason: fmt.Sprintf("iteration:%d/%d", st.Iterations[key], limit),
			Message: fmt.Sprintf("Iteration %d/%d (spcstr iteration-limit): the task is not done yet. Still open: %s. "+
				"Keep working on it; at %d iterations the stop is allowed and the user decides.",
				st.Iterations[key], limit, strings.Join(open, "; "), limit)}
		return true
	})
	if err != nil {
		return nil, err
	}
	return []gate.Verdict{v}, nil
}

// openWork lists what keeps the agent's task open: the main agent's todos
// and tasks not completed, and a missing completion marker.
func (s *iterationLimit) openWork(in *gate.Input) []string {
	var open []string
	if in.Name == hookio.Stop {
		for _, t := range in.Session.Todos {
			if t.Status == "pending" || t.Status == "in_progress" {
				open = append(open, "todo "+clipText(t.Content, 80))
			}
		}
		for _, t := range in.Session.Tasks {
			if t.Status == "pending" || t.Status == "in_progress" {
				open = append(open, "task "+clipText(firstNonEmpty(t.Subject, t.ID), 80))
			}
		}
	}
	if m := s.o.CompletionMarker; m != "" && !strings.Contains(in.Event.LastAssistantMessage, m) {
		open = append(open, "the last message does not say "+m)
	}
	if len(open) > 5 {
		open = append(open[:5], fmt.Sprintf("%d more", len(open)-5))
	}
	return open
}

func who(in *gate.Input) string {
	if in.Name == hookio.SubagentStop {
		if a := in.Session.FindAgent(in.Event.AgentID); a != nil {
			return "the " + a.Name + " agent"
		}
		return "the " + firstNonEmpty(in.Event.AgentType, "sub") + " agent"
	}
	return "Claude"
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// clipText shortens s to n runes on one line.
func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
