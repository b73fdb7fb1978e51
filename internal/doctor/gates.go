package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/logs"
)

// checkGates: the gates' fail modes and Stop cap are usable, and no gate
// has failed open (decisions.json records with reason gate-error: a gate
// could not decide and let the action through).
func checkGates(_ context.Context, env *Env) []Finding {
	var out []Finding
	cfg, err := config.Load(env.ConfigPath())
	if err == nil {
		for _, section := range []string{"requirements", "feedback"} {
			if _, err := gate.ReadFailMode(cfg, section); err != nil {
				out = append(out, Finding{Severity: Error, Message: cfg.Where(nil, section+".fail_mode", err),
					Fix: "write fail_mode: open or fail_mode: closed (until then requirements fail closed)"})
			}
		}
		if cfg.StopBlockLimit < 0 {
			out = append(out, Finding{Severity: Error, Message: fmt.Sprintf("stop_block_limit %d: want a positive number", cfg.StopBlockLimit),
				Fix: "remove it (default 3) or set a positive number"})
		} else if cfg.StopBlockLimit > gate.ClaudeCodeStopBlockCap {
			out = append(out, Finding{Severity: Warning,
				Message: fmt.Sprintf("stop_block_limit %d is above Claude Code's own cap of %d blocked Stops", cfg.StopBlockLimit, gate.ClaudeCodeStopBlockCap),
				Fix:     fmt.Sprintf("lower it to %d or less, or raise CLAUDE_CODE_STOP_HOOK_BLOCK_CAP in Claude Code's environment", gate.ClaudeCodeStopBlockCap)})
		}
	}
	path := env.Layout().LogPath(logs.Name(logs.Decisions, ""))
	n := 0
	var last gate.Record
	err = logs.ScanFile(path, func(raw []byte) error {
		var r gate.Record
		if json.Unmarshal(raw, &r) == nil && r.Reason == gate.ReasonGateError && r.Decision == gate.Allow {
			n++
			last = r
		}
		return nil
	})
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		out = append(out, Finding{Severity: Warning, Message: fmt.Sprintf("cannot read %s: %v", env.Rel(path), err)})
	case n > 0:
		out = append(out, Finding{Severity: Warning,
			Message: fmt.Sprintf("%d gate decision(s) failed open (a gate could not decide and let the action through); the latest: %s at %s, %s: %s",
				n, termtext.Line(last.Source), termtext.Line(last.Hook), last.Timestamp.Format("2006-01-02 15:04:05Z07:00"), termtext.Line(last.Error)),
			Fix: "fix what the error says; set fail_mode: closed on a gate that must hold even then"})
	}
	if len(out) == 0 {
		out = append(out, Finding{Severity: OK, Message: "gate fail modes and Stop cap are valid; no gate failed open"})
	}
	return out
}
