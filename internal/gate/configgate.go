package gate

import (
	"context"
	"errors"
	"fmt"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// ConfigGateName names the gate of an unusable config.yaml in decisions.json.
const ConfigGateName = "config"

// UnusableConfig is the gate of a .spcstr/config.yaml that could not be
// used (err).
//
// A file that parses but has top-level values of the wrong type
// (config.ValueError) configures every gate all the same (each reads its
// own section from the syntax tree, with its own fail mode): this gate
// only tells the user, once per session, which values keep their defaults.
//
// A file that could not be read or parsed configures no gate, so none
// could decide. When its text asks for a gate that fails closed (a
// fail_mode whose value is not open, or a section in closedByDefault, read
// as YAML tokens by config.AsksClosed), it denies every PreToolUse and
// blocks every Stop and SubagentStop until the file is fixed; otherwise it
// fails open on those events and on prompts, telling the user each time.
// Either way decisions.json gets a gate-error record.
func UnusableConfig(path string, err error, closedByDefault []string) Gate {
	var ve *config.ValueError
	if errors.As(err, &ve) {
		return &unusableConfig{err: err, partial: true}
	}
	closed := false
	if data, rerr := safefs.ReadFile(path, safefs.MaxConfigBytes); rerr == nil {
		closed = config.AsksClosed(data, closedByDefault)
	}
	return &unusableConfig{err: err, closed: closed}
}

type unusableConfig struct {
	err     error
	closed  bool
	partial bool // a config.ValueError: the gates are configured
}

func (g *unusableConfig) Name() string     { return ConfigGateName }
func (g *unusableConfig) FailClosed() bool { return g.closed }

// Declares implements Declarer.
func (g *unusableConfig) Declares(in *Input) bool {
	if g.partial {
		return false // it decides nothing
	}
	switch in.Name {
	case hookio.PreToolUse, hookio.Stop, hookio.SubagentStop:
		return true
	case hookio.UserPromptSubmit, hookio.SessionStart:
		return !g.closed
	}
	return false
}

func (g *unusableConfig) Evaluate(_ context.Context, in *Input) ([]Verdict, error) {
	if g.partial {
		switch in.Name {
		case hookio.SessionStart, hookio.UserPromptSubmit, hookio.PreToolUse, hookio.Stop:
		default:
			return nil, nil
		}
		if in.Session == nil || !in.Session.Note("config:value-error") {
			return nil, nil
		}
		return []Verdict{{SystemMessage: fmt.Sprintf("spcstr: %v; those settings keep their defaults, everything else applies (run `spcstr doctor`).", g.err)}}, nil
	}
	if !g.Declares(in) {
		return nil, nil
	}
	return nil, fmt.Errorf(".spcstr/config.yaml is unusable, so its gates cannot run: %w", g.err)
}
