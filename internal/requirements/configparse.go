package requirements

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
)

// Validation of the merged configuration document: each section and each
// requirement is checked here, and what is invalid becomes a warning.

// build validates the merged document into c.
func (c *Config) build(doc yaml.MapSlice) {
	c.Enabled = true
	c.Hooks = Hooks{StopVerify: true, VerifyScopes: []string{ScopeSession}, InjectContext: true}
	if v, ok := get(doc, "enabled"); ok {
		if b, isBool := v.(bool); isBool {
			c.Enabled = b
		} else {
			c.warn("top-level enabled must be true or false (got %s); using true", show(v))
		}
	}
	if v, ok := get(doc, "hooks"); ok && v != nil {
		c.buildHooks(v)
	}
	v, ok := get(doc, "requirements")
	if !ok || v == nil {
		return
	}
	reqs, isMap := v.(yaml.MapSlice)
	if !isMap {
		c.warn("requirements must be a mapping of names to settings (got %s); no requirements loaded", show(v))
		return
	}
	for _, it := range reqs {
		name := fmt.Sprint(it.Key)
		r, err := parseReq(name, it.Value)
		if err != nil {
			where := ""
			if files := c.origin[name]; len(files) > 0 {
				where = " (" + strings.Join(files, ", ") + ")"
			}
			c.Warnings = append(c.Warnings, fmt.Sprintf("requirement %q%s dropped: %v", name, where, err))
			continue
		}
		c.Requirements = append(c.Requirements, r)
	}
}

func (c *Config) warn(format string, args ...any) {
	c.Warnings = append(c.Warnings, "requirements config: "+fmt.Sprintf(format, args...))
}

func (c *Config) buildHooks(v any) {
	hooks, ok := v.(yaml.MapSlice)
	if !ok {
		c.warn("hooks must be a mapping (got %s); using defaults", show(v))
		return
	}
	boolean := func(section, key string, dst *bool) {
		sec, ok := get(hooks, section)
		if !ok || sec == nil {
			return
		}
		m, ok := sec.(yaml.MapSlice)
		if !ok {
			c.warn("hooks.%s must be a mapping (got %s); using defaults", section, show(sec))
			return
		}
		val, ok := get(m, key)
		if !ok || val == nil {
			return
		}
		if b, isBool := val.(bool); isBool {
			*dst = b
			return
		}
		c.warn("hooks.%s.%s must be true or false (got %s); using %v", section, key, show(val), *dst)
	}
	boolean("stop", "verify_requirements", &c.Hooks.StopVerify)
	boolean("session_end", "clear_session_state", &c.Hooks.ClearSessionState)
	boolean("session_start", "inject_context", &c.Hooks.InjectContext)
	stop, _ := get(hooks, "stop")
	m, _ := stop.(yaml.MapSlice)
	if val, ok := get(m, "verify_scopes"); ok && val != nil {
		scopes, err := stringList(val)
		for _, s := range scopes {
			if err == nil && !ValidScope(s) {
				err = fmt.Errorf("unknown scope %q (valid: %s)", s, strings.Join(Scopes, ", "))
			}
		}
		if err != nil {
			c.warn("hooks.stop.verify_scopes: %v; using [session]", err)
		} else {
			c.Hooks.VerifyScopes = scopes
		}
	}
}

// parseReq validates one requirement's settings. Unknown keys are ignored
// (the framework has more, such as description); the framework's dynamic
// and guard requirement types are not supported and make the requirement
// invalid.
func parseReq(name string, v any) (*Req, error) {
	if strings.TrimSpace(name) == "" {
		return nil, errors.New("empty name")
	}
	m, ok := v.(yaml.MapSlice)
	if !ok {
		return nil, fmt.Errorf("its settings must be a mapping (got %s)", show(v))
	}
	r := &Req{Name: name, Scope: ScopeSession}
	for _, it := range m {
		key := fmt.Sprint(it.Key)
		val := it.Value
		var err error
		switch key {
		case "enabled":
			b, isBool := val.(bool)
			if !isBool {
				err = fmt.Errorf("enabled must be true or false (got %s)", show(val))
			}
			r.Enabled = b
		case "scope":
			s, isStr := val.(string)
			if !isStr || !ValidScope(s) {
				err = fmt.Errorf("scope must be one of %s (got %s)", strings.Join(Scopes, ", "), show(val))
			}
			r.Scope = s
		case "type":
			if s, _ := val.(string); s != "blocking" {
				err = fmt.Errorf("type %s is not supported by spcstr (only blocking requirements are)", show(val))
			}
		case "trigger_tools":
			r.Triggers, err = parseTriggers(val)
		case "message":
			s, isStr := val.(string)
			if !isStr && val != nil {
				err = fmt.Errorf("message must be text (got %s)", show(val))
			}
			r.Message = s
		case "checklist":
			r.Checklist, err = stringList(val)
			if err != nil {
				err = fmt.Errorf("checklist: %w", err)
			}
		case "satisfied_by_skill", "auto_resolve_skill":
			s, isStr := val.(string)
			if (!isStr && val != nil) || (isStr && strings.TrimSpace(s) == "") {
				err = fmt.Errorf("%s must be a skill name (got %s)", key, show(val))
			}
			if key == "satisfied_by_skill" {
				r.SatisfiedBySkill = strings.TrimSpace(s)
			} else {
				r.AutoResolveSkill = strings.TrimSpace(s)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if r.Triggers == nil {
		for _, t := range DefaultTriggers {
			r.Triggers = append(r.Triggers, Trigger{Tool: t})
		}
	}
	return r, nil
}

// parseTriggers reads trigger_tools: tool names ("Edit") or
// {tool: Bash, command_pattern: "git\\s+commit"}.
func parseTriggers(v any) ([]Trigger, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("trigger_tools must be a list (got %s)", show(v))
	}
	out := []Trigger{}
	for i, item := range list {
		switch it := item.(type) {
		case string:
			if strings.TrimSpace(it) == "" {
				return nil, fmt.Errorf("trigger_tools[%d] is an empty tool name", i)
			}
			out = append(out, Trigger{Tool: strings.TrimSpace(it)})
		case yaml.MapSlice:
			var t Trigger
			for _, kv := range it {
				key := fmt.Sprint(kv.Key)
				s, isStr := kv.Value.(string)
				switch key {
				case "tool":
					if !isStr || strings.TrimSpace(s) == "" {
						return nil, fmt.Errorf("trigger_tools[%d].tool must be a tool name (got %s)", i, show(kv.Value))
					}
					t.Tool = strings.TrimSpace(s)
				case "command_pattern":
					if !isStr {
						return nil, fmt.Errorf("trigger_tools[%d].command_pattern must be a regular expression (got %s)", i, show(kv.Value))
					}
					re, err := compilePattern(s)
					if err != nil {
						return nil, fmt.Errorf("trigger_tools[%d].command_pattern %q is not a valid regular expression: %v", i, s, err)
					}
					t.CommandPattern, t.re = s, re
				default:
					return nil, fmt.Errorf("trigger_tools[%d] has unknown key %q (use tool and command_pattern)", i, key)
				}
			}
			if t.Tool == "" {
				return nil, fmt.Errorf("trigger_tools[%d] needs a tool", i)
			}
			if t.re != nil && t.Tool != "Bash" {
				return nil, fmt.Errorf("trigger_tools[%d]: command_pattern applies only to tool Bash (got %s)", i, t.Tool)
			}
			out = append(out, t)
		default:
			return nil, fmt.Errorf("trigger_tools[%d] must be a tool name or {tool, command_pattern} (got %s)", i, show(item))
		}
	}
	return out, nil
}

func stringList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("must be a list of text (got %s)", show(v))
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		s, ok := item.(string)
		if !ok {
			return nil, fmt.Errorf("item %d must be text (got %s)", i+1, show(item))
		}
		out = append(out, s)
	}
	return out, nil
}

// show describes a YAML value for a warning.
func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "nothing"
	case string:
		return fmt.Sprintf("%q", x)
	case yaml.MapSlice:
		return "a mapping"
	case []any:
		return "a list"
	}
	return fmt.Sprint(v)
}
