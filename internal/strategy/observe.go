package strategy

import (
	"path/filepath"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/observe"
	"github.com/dylan-gluck/spcstr/internal/pathglob"
)

// CustomEvents lists the custom observability event types a built-in
// strategy declares (docs/observability.md); a strategy may emit only
// those.
func CustomEvents(name string) []string {
	switch name {
	case NameTokenBudget:
		return []string{observe.ThresholdCrossed}
	case NameLongRunning:
		return []string{observe.FeatureProgress}
	}
	return nil
}

// emit records a custom observability event of strategy name for the
// hook of in (nothing when the hook keeps no custom events).
func emit(in *gate.Input, name, typ string, payload map[string]any) {
	in.Observe.Emit(Source(name), CustomEvents(name), typ, payload)
}

// observes reports whether the hook of in keeps custom events: callers
// skip work done only for them.
func observes(in *gate.Input) bool { return in.Observe.Verbosity().Keeps(observe.Custom) }

// reportProgress emits long-running's feature_progress where the feature
// list is read (SessionStart, PreCompact) or was just written.
func (s *longRunning) reportProgress(in *gate.Input) {
	if !observes(in) {
		return
	}
	switch in.Name {
	case hookio.SessionStart, hookio.PreCompact:
	case hookio.PostToolUse:
		if in.Event.ToolName == "Bash" {
			return
		}
		file := pathglob.Rel(in.Layout.Root, in.Event.Input().FilePath)
		want := filepath.ToSlash(filepath.Clean(s.o.FeatureList))
		if file != want && !(!strings.Contains(want, "/") && filepath.Base(file) == want) {
			return
		}
	default:
		return
	}
	passing, total := s.countFeatures(in)
	if total == 0 {
		return
	}
	emit(in, NameLongRunning, observe.FeatureProgress, map[string]any{"passing": passing, "total": total, "at": in.Name})
}
