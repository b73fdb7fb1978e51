package gate

import (
	"context"
	"fmt"
	"regexp"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// ConfigGateName names the gate of an unusable config.yaml in decisions.json.
const ConfigGateName = "config"

// askedClosed finds a fail_mode: closed anywhere in a config file's text.
var askedClosed = regexp.MustCompile(`(?m)^\s*fail_mode\s*:\s*["']?closed["']?\s*(#.*)?$`)

// UnusableConfig is the gate of a .spcstr/config.yaml that could not be
// read or parsed (err): no gate it configures can be built, so none could
// decide. When the file's text asks for fail_mode closed anywhere, it
// denies every PreToolUse and blocks every Stop and SubagentStop until the
// file is fixed; otherwise it fails open on those events and on prompts,
// telling the user each time. Either way decisions.json gets a gate-error
// record.
func UnusableConfig(path string, err error) Gate {
	closed := false
	if data, rerr := safefs.ReadFile(path, safefs.MaxConfigBytes); rerr == nil {
		closed = askedClosed.Match(data)
	}
	return &unusableConfig{err: err, closed: closed}
}

type unusableConfig struct {
	err    error
	closed bool
}

func (g *unusableConfig) Name() string     { return ConfigGateName }
func (g *unusableConfig) FailClosed() bool { return g.closed }

// Declares implements Declarer.
func (g *unusableConfig) Declares(in *Input) bool {
	switch in.Name {
	case hookio.PreToolUse, hookio.Stop, hookio.SubagentStop:
		return true
	case hookio.UserPromptSubmit, hookio.SessionStart:
		return !g.closed
	}
	return false
}

func (g *unusableConfig) Evaluate(_ context.Context, in *Input) ([]Verdict, error) {
	if !g.Declares(in) {
		return nil, nil
	}
	return nil, fmt.Errorf(".spcstr/config.yaml is unusable, so its gates cannot run: %w", g.err)
}
