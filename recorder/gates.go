package recorder

import (
	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/internal/strategy"
)

// DefaultGates builds the gates that may answer Claude Code for a project:
// the requirements framework, the feedback loop and the configured
// strategies. A gate whose configuration is absent stays inert, so a
// project without configuration pays only for a few stats of missing files.
//
// A config.yaml that cannot be read or parsed adds gate.UnusableConfig,
// so that the gates it would have configured fail as it asked.
func DefaultGates(setup gate.Setup) []gate.Gate {
	var gates []gate.Gate
	if setup.ConfigErr != nil {
		gates = append(gates, gate.UnusableConfig(setup.Layout.ConfigPath(), setup.ConfigErr, strategy.ClosedByDefault()))
	}
	gates = append(gates, requirements.NewGate(setup))
	gates = append(gates, feedback.Gates(setup)...)
	gates = append(gates, strategy.Gates(setup)...)
	return gates
}
