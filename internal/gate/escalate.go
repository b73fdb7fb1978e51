package gate

import (
	"fmt"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

// maxStopBlocks is how many Stops in a row a gate may block without
// progress before the next one is let through.
const maxStopBlocks = 3

// escalate is the Stop escalation: it lets a Stop (or SubagentStop)
// through, with a message saying what is unmet, once the gate named source
// has blocked maxStopBlocks of them in a row without any tool call in
// between, so that a gate that cannot be satisfied never traps Claude.
// Progress, or a Stop the gate allows, resets the count, which lives in
// s.Gates["<source>/<event>"]. A dry-run block is not enforced, so it is
// not counted.
func escalate(s *state.Session, event, source string, verdicts []Verdict) []Verdict {
	if event != hookio.Stop && event != hookio.SubagentStop {
		return verdicts
	}
	key := source + "/" + event
	gs := s.Gates[key]
	tools := s.ToolCalls()
	blocking := false
	for _, v := range verdicts {
		if v.Decision == Block && !v.DryRun {
			blocking = true
		}
	}
	if s.Gates == nil {
		s.Gates = map[string]state.GateState{}
	}
	if !blocking {
		if gs.StopBlocks != 0 {
			delete(s.Gates, key)
		}
		return verdicts
	}
	if tools > gs.ToolsAtBlock {
		gs.StopBlocks = 0
	}
	if gs.StopBlocks >= maxStopBlocks {
		out := make([]Verdict, 0, len(verdicts))
		for _, v := range verdicts {
			if v.Decision == Block && !v.DryRun {
				v.Decision = Allow
				v.Escalated = true
				v.Reason = "escalated:" + v.Reason
				v.SystemMessage = fmt.Sprintf("spcstr: %s blocked %d stops in a row without progress, so this stop is allowed. Still unmet:\n%s",
					source, maxStopBlocks, v.Message)
			}
			out = append(out, v)
		}
		gs.ToolsAtBlock = tools
		s.Gates[key] = gs
		return out
	}
	gs.StopBlocks++
	gs.ToolsAtBlock = tools
	s.Gates[key] = gs
	return verdicts
}
