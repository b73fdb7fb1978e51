package doctor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/internal/strategy"
)

// checkRequirements: the requirements cascade loads, and every requirement
// that was dropped for being invalid is named (the recorder skips it; the
// rest keep working).
func checkRequirements(_ context.Context, env *Env) []Finding {
	cfg, err := requirements.LoadConfig(env.Root, env.Getenv)
	if err != nil {
		return []Finding{{Severity: Error, Message: "requirements config cannot be read: " + err.Error(),
			Fix: "check the permissions of the requirements.yaml files"}}
	}
	if len(cfg.Files) == 0 && len(cfg.Warnings) == 0 {
		return []Finding{{Severity: OK, Message: "no requirements configured"}}
	}
	var out []Finding
	for _, w := range cfg.Warnings {
		first, _, _ := strings.Cut(w, "\n")
		out = append(out, Finding{Severity: Warning, Message: first,
			Fix: "correct or remove it in the requirements.yaml named (keys: enabled, scope, trigger_tools, message, satisfied_by_skill, ...)"})
	}
	if len(out) == 0 {
		out = append(out, Finding{Severity: OK, Message: fmt.Sprintf("requirements config loads (%s)", strings.Join(relAll(env, cfg.Files), ", "))})
	}
	if !cfg.OptedIn && len(cfg.Files) > 0 {
		out = append(out, Finding{Severity: Info,
			Message: "requirements are not enforced in this project: it has not opted in (only the global ~/.claude/requirements.yaml exists)",
			Fix:     "to opt in, create .claude/requirements.yaml (an empty file applies the global requirements) or .claude/requirements.local.yaml"})
	}
	return out
}

// checkFeedback: the feedback section and orchestration limits are usable.
func checkFeedback(_ context.Context, env *Env) []Finding {
	cfg, err := config.Load(env.ConfigPath())
	if err != nil {
		return nil // reported by the config check
	}
	errs := feedback.Validate(gate.Setup{Layout: env.Layout(), Config: cfg, Getenv: env.Getenv})
	if len(errs) == 0 {
		return []Finding{{Severity: OK, Message: "feedback loop configuration is valid (or the loop is off)"}}
	}
	var out []Finding
	for _, e := range errs {
		first, _, _ := strings.Cut(e.Error(), "\n")
		out = append(out, Finding{Severity: Error, Message: first,
			Fix: "fix the feedback section of .spcstr/config.yaml or .claude/config/orchestration-limits.yaml (see the README's configuration reference)"})
	}
	return out
}

// checkStrategies: every configured strategy is usable (several blocking
// at one hook is fine: their verdicts merge).
func checkStrategies(_ context.Context, env *Env) []Finding {
	cfg, err := config.Load(env.ConfigPath())
	var ve *config.ValueError
	if err != nil && !errors.As(err, &ve) {
		return nil // reported by the config check
	}
	// A top-level value of the wrong type (reported by the config check)
	// leaves the strategies readable: each is checked all the same.
	problems := strategy.ValidateIn(cfg, env.Root)
	if len(problems) == 0 {
		if active := strategy.Active(cfg); len(active) > 0 {
			names := make([]string, len(active))
			for i, a := range active {
				names[i] = a.Name
			}
			return []Finding{{Severity: OK, Message: "strategies active: " + strings.Join(names, ", ")}}
		}
		return []Finding{{Severity: OK, Message: "no strategies configured"}}
	}
	var out []Finding
	for _, p := range problems {
		f := Finding{Severity: Error, Message: p.Message,
			Fix: "fix the strategies section of .spcstr/config.yaml (see the README's configuration reference)"}
		if p.Kind == strategy.ProblemWarning {
			f.Severity, f.Fix = Warning, "check the strategy does what you mean (docs/feedback-and-strategies.md)"
		}
		out = append(out, f)
	}
	return out
}

func relAll(env *Env, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = env.Rel(p)
	}
	return out
}
