package requirements

import (
	"fmt"
	"strings"
)

// ExpandMessage returns r's message with {session_id} and {branch} filled
// in, or the framework's default message.
func (r *Req) ExpandMessage(key, branch string) string {
	msg := strings.TrimSpace(r.Message)
	if msg == "" {
		return fmt.Sprintf("Requirement %q not satisfied.", r.Name)
	}
	return strings.NewReplacer("{session_id}", key, "{branch}", branch).Replace(msg)
}

// RunHint says which skill satisfies r ("run /arch-review"), or "" when no
// skill does.
func (r *Req) RunHint() string {
	skills := r.Skills()
	if len(skills) == 0 {
		return ""
	}
	if len(skills) > 3 {
		skills = skills[:3]
	}
	for i, s := range skills {
		skills[i] = "/" + normSkill(s)
	}
	return "run " + strings.Join(skills, " or ")
}

// SatisfyCommand is the manual fallback for names in session key.
func SatisfyCommand(names []string, key string) string {
	cmd := "spcstr req satisfy " + strings.Join(names, " ")
	if key != "" {
		cmd += " --session " + key
	}
	return cmd
}

func names(reqs []*Req) []string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.Name
	}
	return out
}

// DenyMessage is the reason Claude reads when a tool call is denied: every
// unmet requirement, its message and checklist, and what satisfies it.
func DenyMessage(unmet []*Req, tool, key, branch string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Unsatisfied requirements: this %s call is blocked until %s satisfied.\n", tool, plural(len(unmet), "this requirement is", "these requirements are"))
	for _, r := range unmet {
		fmt.Fprintf(&b, "\n- %s (%s scope): %s\n", r.Name, r.Scope, r.ExpandMessage(key, branch))
		if len(r.Checklist) > 0 {
			b.WriteString("  Checklist:\n")
			for i, item := range r.Checklist {
				fmt.Fprintf(&b, "  ⬜ %d. %s\n", i+1, item)
			}
		}
		if hint := r.RunHint(); hint != "" {
			fmt.Fprintf(&b, "  To satisfy it: %s (the Skill tool).\n", hint)
		}
	}
	fmt.Fprintf(&b, "\nSession %s on branch %s.\nFallback, to record %s satisfied by hand:\n  %s\n",
		key, branch, plural(len(unmet), "it", "them"), SatisfyCommand(names(unmet), key))
	return strings.TrimRight(b.String(), "\n")
}

// StopMessage is the reason a Stop is blocked (docs/requirements.md).
func StopMessage(unmet []*Req, key string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Unsatisfied requirements: %s\n", strings.Join(names(unmet), ", "))
	for _, r := range unmet {
		hint := r.RunHint()
		if hint == "" {
			hint = r.ExpandMessage(key, "")
		}
		fmt.Fprintf(&b, "- %s (%s scope, used in this session): %s\n", r.Name, r.Scope, hint)
	}
	fmt.Fprintf(&b, "Fallback: %s", SatisfyCommand(names(unmet), key))
	return b.String()
}

// StatusContext is the short status injected at SessionStart (docs/requirements.md).
func StatusContext(cfg *Config, f *File, key, branch string, now float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Requirements on branch %s (session %s):\n", branch, key)
	unmet := 0
	for _, r := range cfg.EnabledReqs() {
		triggers := make([]string, len(r.Triggers))
		for i, t := range r.Triggers {
			triggers[i] = t.String()
		}
		if f.IsSatisfied(r.Name, r.Scope, key, now) {
			fmt.Fprintf(&b, "- ✅ %s (%s scope): satisfied\n", r.Name, r.Scope)
			continue
		}
		unmet++
		line := fmt.Sprintf("- ⬜ %s (%s scope): NOT satisfied; needed before %s", r.Name, r.Scope, strings.Join(triggers, ", "))
		if hint := r.RunHint(); hint != "" {
			line += "; " + hint
		}
		b.WriteString(line + "\n")
	}
	if unmet > 0 {
		b.WriteString("Tool calls that need an unsatisfied requirement are denied until it is satisfied. `spcstr req status` shows this again.")
	}
	return strings.TrimRight(b.String(), "\n")
}
