package requirements

import (
	"sort"
	"strings"
)

// DefaultSkillMappings are the requirements framework's built-in skill
// mappings (docs/requirements.md): when one of these skills completes, the listed
// requirements are satisfied, if they are configured and enabled.
var DefaultSkillMappings = map[string][]string{
	"requirements-framework:pre-commit":    {"pre_commit_review"},
	"requirements-framework:quality-check": {"pre_pr_review"},
	"requirements-framework:codex-review":  {"codex_reviewer"},
	"requirements-framework:plan-review":   {"commit_plan", "adr_reviewed", "tdd_planned", "solid_reviewed"},
	"requirements-framework:deep-review":   {"pre_pr_review"},
	"requirements-framework:arch-review":   {"commit_plan", "adr_reviewed", "tdd_planned", "solid_reviewed"},
}

// normSkill trims spaces and a leading "/" ("/arch-review" as typed).
func normSkill(s string) string {
	return strings.TrimPrefix(strings.TrimSpace(s), "/")
}

// splitSkill splits "plugin:skill" into its parts ("", skill without one).
func splitSkill(s string) (plugin, name string) {
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return "", s
}

// SkillMatches reports whether an invoked skill is the configured one (rules
// in the package documentation).
func SkillMatches(configured, invoked string) bool {
	configured, invoked = normSkill(configured), normSkill(invoked)
	if configured == "" || invoked == "" {
		return false
	}
	if configured == invoked {
		return true
	}
	cp, cn := splitSkill(configured)
	ip, in := splitSkill(invoked)
	if cn != in {
		return false
	}
	return cp == "" || ip == ""
}

// SatisfiedBy returns the enabled requirements of cfg that the invoked skill
// satisfies: through the default mappings, satisfied_by_skill or
// auto_resolve_skill. Order follows the configuration.
func (c *Config) SatisfiedBy(invoked string) []*Req {
	var out []*Req
	for _, r := range c.EnabledReqs() {
		if r.satisfiedBy(invoked) {
			out = append(out, r)
		}
	}
	return out
}

func (r *Req) satisfiedBy(invoked string) bool {
	if SkillMatches(r.SatisfiedBySkill, invoked) || SkillMatches(r.AutoResolveSkill, invoked) {
		return true
	}
	for skill, names := range DefaultSkillMappings {
		if !SkillMatches(skill, invoked) {
			continue
		}
		for _, n := range names {
			if n == r.Name {
				return true
			}
		}
	}
	return false
}

// Skills returns the skill names that satisfy r: its own
// satisfied_by_skill and auto_resolve_skill, then the default mappings that
// name it.
func (r *Req) Skills() []string {
	var out []string
	add := func(s string) {
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	if r.SatisfiedBySkill != "" {
		add(r.SatisfiedBySkill)
	}
	if r.AutoResolveSkill != "" {
		add(r.AutoResolveSkill)
	}
	var defaults []string
	for skill, reqs := range DefaultSkillMappings {
		for _, n := range reqs {
			if n == r.Name {
				defaults = append(defaults, skill)
			}
		}
	}
	sort.Strings(defaults)
	for _, s := range defaults {
		add(s)
	}
	return out
}
