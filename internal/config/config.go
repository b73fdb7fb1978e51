// Package config owns spcstr's own settings file, .spcstr/config.yaml: log
// limits, the context window, dry-run, and the sections read by the feedback
// loop and the strategies. Every key is optional; a missing file means the
// defaults. The recorder reads it on every hook, so loading is one small
// file read and parse.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/internal/yamlsafe"
)

// Config is .spcstr/config.yaml.
type Config struct {
	Logs Logs `yaml:"logs"`
	// ContextWindow is the model's context window in tokens, used for the
	// context-use percentage (default 200000; "[1m]" models use 1000000).
	ContextWindow int64 `yaml:"context_window"`
	// DryRun makes every gate log what it would decide and enforce nothing
	// (same as SPCSTR_DRY_RUN=1).
	DryRun bool `yaml:"dry_run"`
	// StopBlockLimit is how many Stops in a row any gate may block
	// without progress before the next one goes through (0: the default,
	// gate.DefaultStopBlockLimit). Strategies, feedback and requirements
	// may set their own.
	StopBlockLimit int `yaml:"stop_block_limit"`
	// State bounds each session's state.json.
	State State `yaml:"state"`
	// Observability configures each session's observability.jsonl.
	Observability Observability `yaml:"observability"`
	// ArchiveTranscripts copies, at SessionEnd, the session's transcript
	// and its subagents' transcripts under .spcstr/sessions/<id>/
	// (size-capped; docs/feedback-and-strategies.md). Default false.
	ArchiveTranscripts bool `yaml:"archive_transcripts"`
	// The feedback, strategies and pricing sections belong to their
	// packages, and dashboard to the dashboard, which decode them with
	// Section.

	// Raw is the file's bytes, for packages that decode their own section.
	Raw []byte `yaml:"-"`
	// Path is where the file was read from ("" when there was none).
	Path string `yaml:"-"`

	doc    yaml.MapSlice // the file's top level, parsed once on first use
	docErr error
	parsed bool

	tree    *ast.MappingNode // the file's syntax tree, parsed once on first use
	treeErr error
	planted bool
}

// Logs configures .spcstr/logs.
type Logs struct {
	// MaxPayloadBytes caps each payload field stored in a log (default
	// 65536).
	MaxPayloadBytes int `yaml:"max_payload_bytes"`
	// MaxBytes rotates a log to <event>.<n>.json once it grows past this
	// size (default 0: never).
	MaxBytes int64 `yaml:"max_bytes"`
}

// State configures .spcstr/sessions/<id>/state.json.
type State struct {
	// Keep is how many prompts, errors, notifications and finished agents
	// state.json keeps (default 100; the logs keep them all).
	Keep int `yaml:"keep"`
}

// Observability configures .spcstr/sessions/<id>/observability.jsonl
// (docs/observability.md).
type Observability struct {
	// Enabled defaults to true; false writes no observability log.
	Enabled *bool `yaml:"enabled"`
	// Verbosity is minimal, standard (default) or verbose; package
	// observe parses it.
	Verbosity string `yaml:"verbosity"`
	// Dir, when set, is a folder relative to the project root (never
	// out of it) that holds each session's log as <session id>.jsonl
	// instead of .spcstr/sessions/<id>/observability.jsonl (see
	// state.Layout.ObservabilityPathIn).
	Dir string `yaml:"dir"`
}

// On reports whether the observability log is written.
func (o Observability) On() bool { return o.Enabled == nil || *o.Enabled }

// Defaults.
const (
	DefaultContextWindow   = 200_000
	DefaultMaxPayloadBytes = 64 << 10
	DefaultStateKeep       = 100
)

// Default returns the configuration used when there is no file.
func Default() *Config {
	return &Config{
		Logs:          Logs{MaxPayloadBytes: DefaultMaxPayloadBytes},
		ContextWindow: DefaultContextWindow,
		State:         State{Keep: DefaultStateKeep},
	}
}

// Load reads the config file at path. A missing file gives the defaults and
// no error; a file that does not parse gives the defaults and an error that
// names the file and line, so that callers can warn and carry on.
func Load(path string) (*Config, error) {
	cfg := Default()
	data, err := safefs.ReadFile(path, safefs.MaxConfigBytes)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return cfg, nil
		}
		return cfg, fmt.Errorf("read %s: %w", path, err)
	}
	parsed := Default()
	var valueErr error
	if err := yamlsafe.Unmarshal(data, parsed); err != nil {
		// A file that parses but has a value of the wrong type: each
		// top-level key is read on its own, so that one bad value
		// switches off nothing else (its sections, strategies among
		// them, are still read from the syntax tree).
		tree, terr := parseTree(data)
		if terr != nil {
			return cfg, fmt.Errorf("parse %s: %w", path, err)
		}
		parsed = Default()
		var errs []error
		if tree != nil {
			for _, kv := range tree.Values {
				if e := yaml.NodeToValue(kv, parsed); e != nil {
					errs = append(errs, e)
				}
			}
		}
		if len(errs) == 0 {
			errs = append(errs, err)
		}
		parsed.tree, parsed.planted = tree, true
		valueErr = &ValueError{Path: path, Err: errors.Join(errs...)}
	}
	if parsed.Logs.MaxPayloadBytes <= 0 {
		parsed.Logs.MaxPayloadBytes = DefaultMaxPayloadBytes
	}
	if parsed.ContextWindow <= 0 {
		parsed.ContextWindow = DefaultContextWindow
	}
	if parsed.State.Keep <= 0 {
		parsed.State.Keep = DefaultStateKeep
	}
	parsed.Raw, parsed.Path = data, path
	return parsed, valueErr
}

// ValueError is Load's error for a file that parses but has top-level
// values of the wrong type (`stop_block_limit: three`): those keep their
// defaults, every other key and section is read as usual (the Config
// returned with it holds them).
type ValueError struct {
	Path string
	Err  error
}

func (e *ValueError) Error() string { return fmt.Sprintf("parse %s: %v", e.Path, e.Err) }
func (e *ValueError) Unwrap() error { return e.Err }

// Section decodes one top-level section of the file (e.g. "feedback") into
// v. It does nothing when the file or the section is absent.
func (c *Config) Section(name string, v any) error {
	node, ok, err := c.Node(name)
	if err != nil || !ok {
		return err
	}
	if err := yaml.NodeToValue(node, v, yaml.Strict()); err != nil {
		return fmt.Errorf("%s: section %s: %w", c.Path, name, err)
	}
	return nil
}

// Lookup returns one top-level section as parsed (mappings as ordered
// yaml.MapSlice, so that callers can keep the file's order). The file is
// parsed once per Config, however many sections the gates of one hook read.
func (c *Config) Lookup(name string) (value any, ok bool, err error) {
	if len(c.Raw) == 0 {
		return nil, false, nil
	}
	if !c.parsed {
		c.parsed = true
		if err := yamlsafe.Unmarshal(c.Raw, &c.doc, yaml.UseOrderedMap()); err != nil {
			c.docErr = fmt.Errorf("parse %s: %w", c.Path, err)
		}
	}
	if c.docErr != nil {
		return nil, false, c.docErr
	}
	for _, item := range c.doc {
		if fmt.Sprint(item.Key) == name {
			return item.Value, true, nil
		}
	}
	return nil, false, nil
}

// UserPath is the user's own spcstr config, $XDG_CONFIG_HOME/spcstr/config.yaml
// (default ~/.config/spcstr/config.yaml), with getenv's values ("" when
// neither variable is set). It holds what only the user may choose, such as
// the commands the dashboard runs (its dashboard: section has the project
// file's keys): a project's .spcstr/config.yaml is data from the repository
// (docs/security.md).
func UserPath(getenv func(string) string) string {
	base := getenv("XDG_CONFIG_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "spcstr", "config.yaml")
}
