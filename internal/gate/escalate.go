package gate

import (
	"fmt"
	"strconv"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

// DefaultStopBlockLimit is how many Stops in a row a gate may block
// without progress (no tool call in between) before the next one is let
// through, unless stop_block_limit says otherwise. Three: a Stop blocked
// without any tool call after it means Claude read the reason and did
// nothing, and three readings match the feedback loop's own
// max_consecutive_*_failures (3); it stays well under Claude Code's own
// cap (8 blocks, CLAUDE_CODE_STOP_HOOK_BLOCK_CAP), so spcstr, which can
// say which gate gave way and why, decides before Claude Code silently
// does.
const DefaultStopBlockLimit = 3

// ClaudeCodeStopBlockCap is Claude Code's own cap on blocked Stops in a
// row (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP): a stop_block_limit above it never
// takes effect unless that variable is raised.
const ClaudeCodeStopBlockCap = 8

// StopLimiter is a gate with its own stop_block_limit (0: the global one).
type StopLimiter interface {
	StopBlockLimit() int
}

// stopLimit is the stop_block_limit of gate g under policy p, never
// above Claude Code's own cap as the hook's environment sets it
// (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP): past that cap Claude Code lets the Stop
// through without saying which gate held it, so spcstr gives way first.
func stopLimit(g Gate, p Policy, getenv func(string) string) int {
	limit := DefaultStopBlockLimit
	if p.StopBlockLimit > 0 {
		limit = p.StopBlockLimit
	}
	if l, ok := g.(StopLimiter); ok && l.StopBlockLimit() > 0 {
		limit = l.StopBlockLimit()
	}
	ccCap := ClaudeCodeStopBlockCap
	if getenv != nil {
		if c, err := strconv.Atoi(getenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP")); err == nil && c > 0 {
			ccCap = c
		}
	}
	return min(limit, ccCap)
}

// escalate is the Stop escalation: it lets a Stop (or SubagentStop)
// through, with a message saying what is unmet, once the gate named source
// has blocked limit of them in a row without any tool call in between, so
// that a gate that cannot be satisfied never traps Claude. The block that
// gives way is recorded with decision Escalated, and the user is told which
// gate gave way and why.
// Progress, a Stop the gate allows, or the user's next prompt
// (resetStopCounts) resets the count, which lives in
// s.Gates["<source>/<event>"]. A dry-run block is not enforced, so it is
// not counted.
func escalate(s *state.Session, event, source string, verdicts []Verdict, limit int) []Verdict {
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
	if gs.StopBlocks >= limit {
		out := make([]Verdict, 0, len(verdicts))
		for _, v := range verdicts {
			if v.Decision == Block && !v.DryRun {
				v.Decision = Escalated
				v.Escalated = true
				v.Reason = "escalated:" + v.Reason
				v.SystemMessage = fmt.Sprintf("spcstr: %s gave way: it blocked %d stops in a row without progress (its stop_block_limit), so this stop is allowed. Still unmet:\n%s",
					source, limit, v.Message)
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

// resetStopCounts forgets every gate's count of blocked Stops when the
// user sends a prompt (UserPromptSubmit): that starts a new task, whose
// first Stop is judged fresh instead of giving way at once because the last
// task's Stops were blocked to the limit (with no tool call since, the count
// would otherwise still stand).
func resetStopCounts(s *state.Session, event string) {
	if event != hookio.UserPromptSubmit || s == nil {
		return
	}
	for k := range s.Gates {
		delete(s.Gates, k)
	}
}
