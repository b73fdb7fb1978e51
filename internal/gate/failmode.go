package gate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
)

// Fail modes: what a gate's failure to decide does.
const (
	// FailOpen lets the action through, never silently: a system message
	// to the user every time and a decision record with reason
	// ReasonGateError.
	FailOpen = "open"
	// FailClosed denies (PreToolUse) or blocks (Stop and other blocking
	// events) with a reason saying the gate could not decide.
	FailClosed = "closed"
)

// ReasonGateError is the reason of every decision a gate's failure to
// decide leaves: the allow of a fail_mode open gate, the deny or block of a
// closed one.
const ReasonGateError = "gate-error"

// ReadFailMode returns the fail_mode key of a top-level section of
// config.yaml ("requirements", "feedback"): "" when the section or key is
// absent. It reads the syntax tree only, so it still answers when the rest
// of the section does not decode. A value other than open or closed is an
// error (the caller fails closed on it: the user asked for something).
func ReadFailMode(cfg *config.Config, section string) (string, error) {
	if cfg == nil {
		return "", nil
	}
	n, ok, err := cfg.Node(section)
	if err != nil {
		return "", err
	}
	if !ok || n == nil {
		return "", nil
	}
	var values []*ast.MappingValueNode
	switch m := n.(type) {
	case *ast.MappingNode:
		values = m.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{m}
	}
	for _, kv := range values {
		if kv.Key == nil || kv.Key.String() != "fail_mode" {
			continue
		}
		if kv.Value == nil || kv.Value.Type() == ast.NullType {
			return "", nil
		}
		var v string
		if yaml.NodeToValue(kv.Value, &v) == nil && (v == FailOpen || v == FailClosed) {
			return v, nil
		}
		shown := strings.TrimSpace(kv.Value.String())
		if v != "" {
			shown = fmt.Sprintf("%q", v)
		}
		return "", config.NodeError(kv.Value, fmt.Errorf("%s.fail_mode %s: want open or closed", section, shown))
	}
	return "", nil
}

// SideWriteError marks an error of a gate's side write (metrics,
// bookkeeping) that happened after the gate decided: Run reports it (the
// session's errors, stderr, an observability error) and keeps the gate's
// verdicts; it never triggers the fail mode.
type SideWriteError struct{ Err error }

func (e *SideWriteError) Error() string { return "side write: " + e.Err.Error() }
func (e *SideWriteError) Unwrap() error { return e.Err }

// SideWrite wraps err (nil stays nil) as a SideWriteError.
func SideWrite(err error) error {
	if err == nil {
		return nil
	}
	return &SideWriteError{Err: err}
}

// isSideWrite reports whether err only concerns a side write.
func isSideWrite(err error) bool {
	var s *SideWriteError
	return errors.As(err, &s)
}

// Declarer is a gate that can say, without its own state, whether it
// answers an event: Run asks it when the session's state is unavailable
// (Input.Unavailable), so that only the gates that would have spoken fail.
// A gate that is not a Declarer is taken to answer every event.
type Declarer interface {
	Declares(in *Input) bool
}

// declares reports whether g answers the event of in.
func declares(g Gate, in *Input) bool {
	d, ok := g.(Declarer)
	return !ok || d.Declares(in)
}

// Idler is a gate that can tell from its configuration alone that it has
// nothing to do in this project (the requirements framework without a
// requirements file): the recorder leaves it out, and when every gate is
// idle it reads no session state for the gates at all, so that a project
// without policies pays nothing for them on its hooks.
type Idler interface {
	Idle() bool
}

// Active returns the gates that are not idle.
func Active(gates []Gate) []Gate {
	out := gates[:0:0]
	for _, g := range gates {
		if i, ok := g.(Idler); ok && i.Idle() {
			continue
		}
		out = append(out, g)
	}
	return out
}
