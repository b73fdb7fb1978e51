package feedback

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/internal/yamlsafe"
)

// Config is the `feedback:` section of .spcstr/config.yaml.
type Config struct {
	// Enabled turns the loop on. Off by default: otherwise every user would
	// be blocked after any edit (docs/feedback-and-strategies.md).
	Enabled bool `yaml:"enabled"`
	// FailMode is what the loop's failure to decide does at Stop: "open"
	// (the default: allowed, and the user told) or "closed" (blocked).
	FailMode string `yaml:"fail_mode"`
	// StopBlockLimit overrides the global stop_block_limit for the loop.
	StopBlockLimit int `yaml:"stop_block_limit"`
	// TestLead names the test-planning agent of every domain that does not
	// set its own (default "test-lead").
	TestLead Names `yaml:"test_lead"`
	// Domains sets reviewer, tester and test lead per domain. Entries merge
	// field by field over the built-in domains; a new domain without names
	// gets "<domain>-reviewer" and "<domain>-tester".
	Domains map[string]Domain `yaml:"domains"`
	// Rules route changed files to domains. They are tried in order before
	// the default rules; the first rule that matches a file decides.
	Rules []Rule `yaml:"rules"`
	// DefaultRules keeps the built-in rules (.claude/tools/ → tool, Go and
	// Python → backend, TSX/JSX → frontend) after Rules. Default true.
	DefaultRules *bool `yaml:"default_rules"`
	// BypassSkills lists skills (or slash commands) that run their own
	// review/test loop: once one runs in a session, Stop is not blocked.
	// Entries may be globs ("orchestrating-*").
	BypassSkills []string `yaml:"bypass_skills"`
	// BypassPattern is a regular expression searched in the session's
	// transcript (read incrementally, at Stop): a match means an
	// orchestration owns the loop, as a bypass skill does. Unset: the
	// orchestration skills' names; "" turns the search off.
	BypassPattern *string `yaml:"bypass_pattern"`
	// bypassRe is a custom bypass_pattern, compiled when the config is
	// loaded so that a bad one is reported then; the default is compiled
	// at its first use (bypass): most hooks never search the transcript.
	bypassRe  *regexp.Regexp
	bypassOff bool
	// LimitsFile is the orchestration limits file, relative to the project
	// root (default .claude/config/orchestration-limits.yaml).
	LimitsFile string `yaml:"limits_file"`
}

// Domain names the agents of one domain. Each accepts one name or a list;
// the first name is the one the Stop message suggests.
type Domain struct {
	Reviewer Names `yaml:"reviewer"`
	Tester   Names `yaml:"tester"`
	TestLead Names `yaml:"test_lead"`
}

// Rule routes files to a domain. A file matches when it matches one of
// Paths (globs relative to the project root; "**" spans folders; a pattern
// without "/" matches the file's base name anywhere) and has one of
// Extensions; an empty list matches everything, but a rule needs at least
// one of the two.
type Rule struct {
	Domain     string   `yaml:"domain"`
	Paths      []string `yaml:"paths"`
	Extensions []string `yaml:"extensions"`
	// Ignore makes matching files untracked (generated code, fixtures).
	Ignore bool `yaml:"ignore"`
}

// Names is one agent name or several. In YAML it is a string or a list.
type Names []string

// UnmarshalYAML accepts a string or a list of strings.
func (n *Names) UnmarshalYAML(b []byte) error {
	var one string
	if err := yaml.Unmarshal(b, &one); err == nil {
		*n = Names{one}
		return nil
	}
	var many []string
	if err := yaml.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want an agent name or a list of names: %w", err)
	}
	*n = many
	return nil
}

// Has reports whether name is one of n.
func (n Names) Has(name string) bool {
	for _, x := range n {
		if x == name {
			return true
		}
	}
	return false
}

// First returns the first name, or "".
func (n Names) First() string {
	if len(n) == 0 {
		return ""
	}
	return n[0]
}

// Built-in domains and defaults.
const (
	DomainBackend  = "backend"
	DomainFrontend = "frontend"
	DomainTool     = "tool"

	DefaultTestLead   = "test-lead"
	DefaultLimitsFile = ".claude/config/orchestration-limits.yaml"
)

// DefaultRules are the built-in routing rules, tried after the configured
// ones: the hooks architecture's routing table. Anything under
// .claude/tools/ belongs to the tool domain (its own reviewer and tester);
// VQL, Nuclei templates and capabilities to the capability domain
// (languages.go); Go, Python and the other common server languages to
// backend; TypeScript, JavaScript and their component formats to frontend.
func DefaultRules() []Rule {
	rules := []Rule{{Domain: DomainTool, Paths: []string{".claude/tools/"}}}
	rules = append(rules, capabilityRules()...)
	return append(rules,
		Rule{Domain: DomainBackend, Extensions: slices.Clone(backendExtensions)},
		Rule{Domain: DomainFrontend, Extensions: slices.Clone(frontendExtensions)})
}

// ErrConfig marks a feedback configuration that cannot be used.
var ErrConfig = errors.New("invalid feedback configuration")

// LoadConfig decodes the feedback section of cfg and fills in the
// defaults. A section that does not decode gives an error wrapping
// ErrConfig.
func LoadConfig(cfg *config.Config) (*Config, error) {
	c := &Config{}
	if cfg != nil {
		if err := cfg.Section("feedback", c); err != nil {
			return &Config{}, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	if err := c.normalize(); err != nil {
		return &Config{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return c, nil
}

func (c *Config) normalize() error {
	if c.FailMode != "" && c.FailMode != gate.FailOpen && c.FailMode != gate.FailClosed {
		return fmt.Errorf("fail_mode %q: want open or closed", c.FailMode)
	}
	if c.StopBlockLimit < 0 {
		return fmt.Errorf("stop_block_limit %d: want a positive number", c.StopBlockLimit)
	}
	if len(c.TestLead) == 0 {
		c.TestLead = Names{DefaultTestLead}
	}
	if c.LimitsFile == "" {
		c.LimitsFile = DefaultLimitsFile
	}
	if p := c.BypassPattern; p != nil && *p != DefaultBypassPattern {
		if *p == "" {
			c.bypassOff = true
		} else {
			re, err := regexp.Compile(*p)
			if err != nil {
				return fmt.Errorf("bypass_pattern: %w", err)
			}
			c.bypassRe = re
		}
	}
	builtin := map[string]Domain{
		DomainBackend:    {Reviewer: Names{"backend-reviewer"}, Tester: Names{"backend-tester"}},
		DomainFrontend:   {Reviewer: Names{"frontend-reviewer"}, Tester: Names{"frontend-tester"}},
		DomainTool:       {Reviewer: Names{"tool-reviewer"}, Tester: Names{"tool-tester"}},
		DomainCapability: {Reviewer: Names{"capability-reviewer"}, Tester: Names{"capability-tester"}},
	}
	merged := map[string]Domain{}
	for name, d := range builtin {
		merged[name] = d
	}
	for name, d := range c.Domains {
		if name == "" {
			return errors.New("domains: empty domain name")
		}
		base := merged[name]
		if len(d.Reviewer) > 0 {
			base.Reviewer = d.Reviewer
		}
		if len(d.Tester) > 0 {
			base.Tester = d.Tester
		}
		if len(d.TestLead) > 0 {
			base.TestLead = d.TestLead
		}
		merged[name] = base
	}
	rules := append([]Rule(nil), c.Rules...)
	if c.DefaultRules == nil || *c.DefaultRules {
		rules = append(rules, DefaultRules()...)
	}
	for i, r := range rules {
		if len(r.Paths) == 0 && len(r.Extensions) == 0 {
			return fmt.Errorf("rules[%d]: needs paths or extensions", i)
		}
		if r.Domain == "" && !r.Ignore {
			return fmt.Errorf("rules[%d]: needs a domain (or ignore: true)", i)
		}
		for _, p := range r.Paths {
			if _, err := filepath.Match(strings.ReplaceAll(p, "**", "*"), ""); err != nil {
				return fmt.Errorf("rules[%d]: bad glob %q: %w", i, p, err)
			}
		}
		for j, e := range r.Extensions {
			if !strings.HasPrefix(e, ".") {
				e = "." + e
			}
			rules[i].Extensions[j] = strings.ToLower(e)
		}
		if r.Domain != "" && !r.Ignore {
			if _, ok := merged[r.Domain]; !ok {
				merged[r.Domain] = Domain{}
			}
		}
	}
	for name, d := range merged {
		if len(d.Reviewer) == 0 {
			d.Reviewer = Names{name + "-reviewer"}
		}
		if len(d.Tester) == 0 {
			d.Tester = Names{name + "-tester"}
		}
		if len(d.TestLead) == 0 {
			d.TestLead = c.TestLead
		}
		merged[name] = d
	}
	c.Domains, c.Rules = merged, rules
	return nil
}

// DomainNames returns the configured domains, sorted.
func (c *Config) DomainNames() []string {
	names := make([]string, 0, len(c.Domains))
	for n := range c.Domains {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Role returns the agent names that run phase for domain.
func (c *Config) Role(domain, phase string) Names {
	d := c.Domains[domain]
	switch phase {
	case PhaseReview:
		return d.Reviewer
	case PhaseTestPlanning:
		return d.TestLead
	case PhaseTesting:
		return d.Tester
	}
	return nil
}

// HasRole reports whether agent is a reviewer, test lead or tester of any
// configured domain.
func (c *Config) HasRole(agent string) bool {
	if agent == "" {
		return false
	}
	for _, d := range c.Domains {
		if d.Reviewer.Has(agent) || d.Tester.Has(agent) || d.TestLead.Has(agent) {
			return true
		}
	}
	return false
}

// Limits are the inter-phase limits of the orchestration's
// .claude/config/orchestration-limits.yaml, with spcstr's per-domain
// overrides.
type Limits struct {
	MaxFeedbackIterations          int `yaml:"max_feedback_iterations" json:"max_feedback_iterations"`
	MaxConsecutiveReviewFailures   int `yaml:"max_consecutive_review_failures" json:"max_consecutive_review_failures"`
	MaxConsecutiveTestFailures     int `yaml:"max_consecutive_test_failures" json:"max_consecutive_test_failures"`
	MaxConsecutivePlanningFailures int `yaml:"max_consecutive_planning_failures" json:"max_consecutive_planning_failures"`
	// Domains overrides the consecutive-failure limits per domain.
	Domains map[string]DomainLimits `yaml:"domains" json:"domains,omitempty"`
	// Path is where the limits came from ("" for the defaults).
	Path string `yaml:"-" json:"path,omitempty"`
}

// DomainLimits overrides the consecutive-failure limits of one domain; zero
// keeps the global value.
type DomainLimits struct {
	MaxConsecutiveReviewFailures   int `yaml:"max_consecutive_review_failures" json:"max_consecutive_review_failures,omitempty"`
	MaxConsecutiveTestFailures     int `yaml:"max_consecutive_test_failures" json:"max_consecutive_test_failures,omitempty"`
	MaxConsecutivePlanningFailures int `yaml:"max_consecutive_planning_failures" json:"max_consecutive_planning_failures,omitempty"`
}

// Default limits.
const (
	DefaultMaxFeedbackIterations = 5
	DefaultMaxConsecutiveFailure = 3
)

// DefaultLimits returns the orchestration defaults.
func DefaultLimits() Limits {
	return Limits{
		MaxFeedbackIterations:          DefaultMaxFeedbackIterations,
		MaxConsecutiveReviewFailures:   DefaultMaxConsecutiveFailure,
		MaxConsecutiveTestFailures:     DefaultMaxConsecutiveFailure,
		MaxConsecutivePlanningFailures: DefaultMaxConsecutiveFailure,
	}
}

// LoadLimits reads the inter_phase section of the limits file at path. A
// missing file gives the defaults and no error; a file that does not parse
// gives the defaults and an error. Other sections (intra_task,
// orchestrator) belong to other tools and are ignored; a limit left out or
// set to 0 keeps its default.
//
// The file is named by the configuration: rel must lead to a regular file
// inside the project root (no "..", no symlink out).
func LoadLimits(root, rel string) (Limits, error) {
	l := DefaultLimits()
	path := filepath.Join(root, filepath.FromSlash(rel))
	data, err := safefs.ReadFileInProject(root, rel, safefs.MaxConfigBytes)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return l, nil
		}
		return l, fmt.Errorf("read %s: %w", path, err)
	}
	var doc struct {
		InterPhase Limits `yaml:"inter_phase"`
	}
	if err := yamlsafe.Unmarshal(data, &doc); err != nil {
		return l, fmt.Errorf("parse %s: %w", path, err)
	}
	in := doc.InterPhase
	if in.MaxFeedbackIterations > 0 {
		l.MaxFeedbackIterations = in.MaxFeedbackIterations
	}
	if in.MaxConsecutiveReviewFailures > 0 {
		l.MaxConsecutiveReviewFailures = in.MaxConsecutiveReviewFailures
	}
	if in.MaxConsecutiveTestFailures > 0 {
		l.MaxConsecutiveTestFailures = in.MaxConsecutiveTestFailures
	}
	if in.MaxConsecutivePlanningFailures > 0 {
		l.MaxConsecutivePlanningFailures = in.MaxConsecutivePlanningFailures
	}
	l.Domains = in.Domains
	l.Path = path
	return l, nil
}

// MaxFailures returns the consecutive-failure limit of phase in domain.
func (l Limits) MaxFailures(domain, phase string) int {
	d := l.Domains[domain]
	pick := func(override, global int) int {
		if override > 0 {
			return override
		}
		return global
	}
	switch phase {
	case PhaseReview:
		return pick(d.MaxConsecutiveReviewFailures, l.MaxConsecutiveReviewFailures)
	case PhaseTestPlanning:
		return pick(d.MaxConsecutivePlanningFailures, l.MaxConsecutivePlanningFailures)
	case PhaseTesting:
		return pick(d.MaxConsecutiveTestFailures, l.MaxConsecutiveTestFailures)
	}
	return 0
}

// limitKey names the limit of phase in the limits file.
func limitKey(phase string) string {
	switch phase {
	case PhaseReview:
		return "max_consecutive_review_failures"
	case PhaseTestPlanning:
		return "max_consecutive_planning_failures"
	}
	return "max_consecutive_test_failures"
}

// defaultBypass is DefaultBypassPattern, compiled at its first use.
var defaultBypass = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(DefaultBypassPattern) })

// bypass returns the bypass pattern to search for (nil: the search is off).
func (c *Config) bypass() *regexp.Regexp {
	switch {
	case c.bypassOff:
		return nil
	case c.bypassRe != nil:
		return c.bypassRe
	}
	return defaultBypass()
}
