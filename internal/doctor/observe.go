package doctor

import (
	"context"
	"fmt"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/observe"
)

// checkObservability: observability.verbosity names a level. A config
// that does not parse is checkConfig's finding.
func checkObservability(_ context.Context, env *Env) []Finding {
	path := env.ConfigPath()
	cfg, err := config.Load(path)
	if err != nil {
		return nil
	}
	o := cfg.Observability
	if !o.On() {
		return []Finding{{Severity: OK, Message: "observability is off (observability.enabled: false): no observability.jsonl is written"}}
	}
	v, err := observe.ParseVerbosity(o.Verbosity)
	if err != nil {
		return []Finding{{Severity: Error, Path: path, Message: fmt.Sprintf("%s: %v", env.Rel(path), err),
			Fix: "set observability.verbosity to minimal, standard or verbose (docs/observability.md)"}}
	}
	if o.Dir != "" {
		if _, err := env.Layout().ObservabilityPathIn(o.Dir, "session"); err != nil {
			return []Finding{{Severity: Error, Path: path, Message: fmt.Sprintf("%s: %v; the hook writes each session's observability.jsonl in its session folder instead", env.Rel(path), err),
				Fix: "set observability.dir to a folder inside the project, relative to its root, that is not a symlink out of it (docs/observability.md)"}}
		}
		return []Finding{{Severity: OK, Message: fmt.Sprintf("observability at verbosity %s: each session's log in %s/<session id>.jsonl", v, o.Dir)}}
	}
	return []Finding{{Severity: OK, Message: fmt.Sprintf("observability at verbosity %s: each session's observability.jsonl", v)}}
}
