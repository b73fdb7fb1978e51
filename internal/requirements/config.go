package requirements

import (
	"errors"
	"fmt"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/internal/yamlsafe"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"
)

// Config file names (docs/requirements.md): later files win.
const (
	GlobalConfigName = "requirements.yaml" // in ~/.claude
	ProjectConfig    = ".claude/requirements.yaml"
	LocalConfig      = ".claude/requirements.local.yaml"
)

// Config is the merged requirements configuration of a project.
type Config struct {
	// Enabled is the framework's switch (top-level `enabled`, default true).
	Enabled bool
	// OptedIn reports whether the project opted in: it has
	// .claude/requirements.yaml or .claude/requirements.local.yaml. Without
	// either, the global file's requirements are shown but enforced nowhere
	// (as in the Python framework).
	OptedIn bool
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

// Active reports whether requirements are enforced in the project: the
// framework is switched on and the project opted in.
func (c *Config) Active() bool { return c != nil && c.Enabled && c.OptedIn }

// OptInHint says how a project that has not opted in does so.
const OptInHint = "the global ~/.claude/requirements.yaml is enforced only in a project that opts in; " +
	"to opt in, create .claude/requirements.yaml (an empty file applies the global requirements) or .claude/requirements.local.yaml"

// EnabledReqs returns the enabled requirements, or none when the framework
// is switched off or the project has not opted in.
func (c *Config) EnabledReqs() []*Req {
	if !c.Active() {
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
// (the framework blocks on a single_use requirement with the default
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
	cfg.OptedIn = Configured(root) // as the gate decides
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
	data, err := safefs.ReadFile(path, safefs.MaxConfigBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var v any
	if err := yamlsafe.Unmarshal(data, &v, yaml.UseOrderedMap()); err != nil {
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

// mergeMaps deep-merges override into base (docs/requirements.md): mappings merge
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
