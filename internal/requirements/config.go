package requirements

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
)

// Config file names (seed 000 §7): later files win.
const (
	GlobalConfigName = "requirements.yaml" // in ~/.claude
	ProjectConfig    = ".claude/requirements.yaml"
	LocalConfig      = ".claude/requirements.local.yaml"
)

// Config is the merged requirements configuration of a project.
type Config struct {
	// Enabled is the framework's switch (top-level `enabled`, default true).
	Enabled bool
	// Requirements holds the valid requirements in configuration order
	// (global first, then names the project and local files add).
	Requirements []*Req
	Hooks        Hooks
	// Warnings explains every requirement or setting that was dropped or
	// ignored, and every file that could not be read. `spcstr doctor` shows
	// them; the gate shows them once per session.
	Warnings []string
	// Files lists the configuration files that were read.
	Files []string

	origin map[string][]string // requirement name → files that mention it
}

// Req is one valid requirement.
type Req struct {
	Name string
	// Enabled defaults to false, as in the Python framework: a requirement
	// is enforced only with `enabled: true`.
	Enabled bool
	Scope   string
	// Triggers are the tool calls the requirement guards (default Edit,
	// Write, MultiEdit).
	Triggers  []Trigger
	Message   string
	Checklist []string
	// SatisfiedBySkill and AutoResolveSkill name skills whose completion
	// satisfies the requirement.
	SatisfiedBySkill string
	AutoResolveSkill string
}

// Hooks is the `hooks:` section.
type Hooks struct {
	// StopVerify is hooks.stop.verify_requirements (default true).
	StopVerify bool
	// VerifyScopes is hooks.stop.verify_scopes (default [session]).
	VerifyScopes []string
	// ClearSessionState is hooks.session_end.clear_session_state (default
	// false).
	ClearSessionState bool
	// InjectContext is hooks.session_start.inject_context (default true).
	InjectContext bool
}

// DefaultTriggers are the tools a requirement guards when trigger_tools is
// absent.
var DefaultTriggers = []string{"Edit", "Write", "MultiEdit"}

// Lookup returns the named requirement, or nil.
func (c *Config) Lookup(name string) *Req {
	if c == nil {
		return nil
	}
	for _, r := range c.Requirements {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// EnabledReqs returns the enabled requirements, or none when the framework
// is switched off.
func (c *Config) EnabledReqs() []*Req {
	if c == nil || !c.Enabled {
		return nil
	}
	var out []*Req
	for _, r := range c.Requirements {
		if r.Enabled {
			out = append(out, r)
		}
	}
	return out
}

// Verifies reports whether Stop verifies requirements of scope. "session"
// in verify_scopes also covers single_use, the other per-session scope
// (seed 000 §10 blocks on a single_use requirement with the default
// [session]); "single_use" alone selects only single_use.
func (h Hooks) Verifies(scope string) bool {
	if !h.StopVerify {
		return false
	}
	for _, s := range h.VerifyScopes {
		if s == scope || (s == ScopeSession && scope == ScopeSingleUse) {
			return true
		}
	}
	return false
}

// ConfigPaths returns the cascade's files for a project: the global file
// (empty when home is unknown), the project file, the local file.
func ConfigPaths(root, home string) (global, project, local string) {
	if home != "" {
		global = filepath.Join(home, ".claude", GlobalConfigName)
	}
	return global, filepath.Join(root, ProjectConfig), filepath.Join(root, LocalConfig)
}

// Configured reports whether the project has requirements configuration:
// .claude/requirements.yaml or .claude/requirements.local.yaml. A global
// file alone does not turn requirements on in every project (as in the
// Python framework). It costs two stats.
func Configured(root string) bool {
	_, p, l := ConfigPaths(root, "")
	if _, err := os.Stat(p); err == nil {
		return true
	}
	_, err := os.Stat(l)
	return err == nil
}

// homeDir returns $HOME (through getenv), else the user's home directory.
func homeDir(getenv func(string) string) string {
	if getenv != nil {
		if h := getenv("HOME"); h != "" {
			return h
		}
	}
	h, _ := os.UserHomeDir()
	return h
}

// LoadConfig reads the cascade for root: ~/.claude/requirements.yaml
// ($HOME through getenv), then .claude/requirements.yaml deep-merged over it
// (or replacing it when the project file says `inherit: false`), then
// .claude/requirements.local.yaml deep-merged over both. A file that does
// not parse is skipped with a warning; an invalid requirement is dropped
// with a warning and the rest keep working. LoadConfig fails only when a
// file exists but cannot be read.
func LoadConfig(root string, getenv func(string) string) (*Config, error) {
	global, project, local := ConfigPaths(root, homeDir(getenv))
	cfg := &Config{}
	var merged yaml.MapSlice
	origin := map[string][]string{}
	for i, path := range []string{global, project, local} {
		if path == "" {
			continue
		}
		doc, err := readYAML(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			var perr *parseError
			if errors.As(err, &perr) {
				cfg.Warnings = append(cfg.Warnings, err.Error())
				continue
			}
			return nil, err
		}
		cfg.Files = append(cfg.Files, path)
		if i == 1 && !inherits(doc) {
			merged = nil
			origin = map[string][]string{}
		}
		if reqs, ok := get(doc, "requirements"); ok {
			if m, ok := reqs.(yaml.MapSlice); ok {
				for _, it := range m {
					name := fmt.Sprint(it.Key)
					origin[name] = append(origin[name], path)
				}
			}
		}
		merged = mergeMaps(merged, doc)
	}
	cfg.origin = origin
	cfg.build(merged)
	return cfg, nil
}

type parseError struct {
	path string
	err  error
}

func (e *parseError) Error() string {
	msg := e.err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return fmt.Sprintf("%s: not valid YAML, file ignored: %s", e.path, msg)
}

func readYAML(path string) (yaml.MapSlice, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var v any
	if err := yaml.UnmarshalWithOptions(data, &v, yaml.UseOrderedMap()); err != nil {
		return nil, &parseError{path, err}
	}
	switch m := v.(type) {
	case nil:
		return nil, nil
	case yaml.MapSlice:
		return m, nil
	}
	return nil, &parseError{path, errors.New("the top level must be a mapping")}
}

// inherits reads the project file's `inherit` (default true).
func inherits(doc yaml.MapSlice) bool {
	v, ok := get(doc, "inherit")
	b, isBool := v.(bool)
	return !ok || !isBool || b
}

func get(m yaml.MapSlice, key string) (any, bool) {
	for _, it := range m {
		if k, ok := it.Key.(string); ok && k == key {
			return it.Value, true
		}
	}
	return nil, false
}

// mergeMaps deep-merges override into base (seed 000 §7): mappings merge
// key by key, anything else is replaced. Order: base's keys, then new keys.
func mergeMaps(base, override yaml.MapSlice) yaml.MapSlice {
	out := make(yaml.MapSlice, len(base), len(base)+len(override))
	copy(out, base)
	for _, it := range override {
		found := false
		for i := range out {
			if fmt.Sprint(out[i].Key) == fmt.Sprint(it.Key) {
				bm, bok := out[i].Value.(yaml.MapSlice)
				om, ook := it.Value.(yaml.MapSlice)
				if bok && ook {
					out[i].Value = mergeMaps(bm, om)
				} else {
					out[i].Value = it.Value
				}
				found = true
				break
			}
		}
		if !found {
			out = append(out, it)
		}
	}
	return out
}

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
