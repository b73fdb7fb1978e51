package feedback

import (
	"path"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/pathglob"
)

// Route returns the domain a changed file belongs to, or "" when no rule
// tracks it. file is relative to the project root when inside it (use
// pathglob.Rel); matching is on forward slashes and case-insensitive for
// extensions. The first matching rule decides, so a path rule placed before
// the extension rules (".claude/tools/**" → tools) wins over them.
func (c *Config) Route(file string) string {
	r := c.rule(file)
	if r == nil || r.Ignore {
		return ""
	}
	return r.Domain
}

// rule returns the first rule that matches file, or nil.
func (c *Config) rule(file string) *Rule {
	if file == "" {
		return nil
	}
	file = strings.ReplaceAll(file, `\`, "/")
	ext := strings.ToLower(path.Ext(file))
	for i := range c.Rules {
		if c.Rules[i].matches(file, ext) {
			return &c.Rules[i]
		}
	}
	return nil
}

func (r Rule) matches(file, ext string) bool {
	if len(r.Extensions) > 0 {
		ok := false
		for _, e := range r.Extensions {
			if e == ext {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(r.Paths) == 0 {
		return true
	}
	for _, p := range r.Paths {
		if pathglob.Match(p, file) {
			return true
		}
	}
	return false
}
