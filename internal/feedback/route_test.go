package feedback

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/config"
)

func loadCfg(t *testing.T, yaml string) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return LoadConfig(cfg)
}

func mustCfg(t *testing.T, yaml string) *Config {
	t.Helper()
	c, err := loadCfg(t, yaml)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRoute(t *testing.T) {
	defaults := mustCfg(t, "feedback:\n  enabled: true\n")
	custom := mustCfg(t, `feedback:
  enabled: true
  rules:
    - domain: tools
      paths: [".claude/tools/**"]
    - domain: capabilities
      paths: ["capabilities/", "**/*.vql"]
    - domain: integration
      paths: ["integration/**"]
      extensions: [go]
    - ignore: true
      paths: ["**/*_gen.go", "vendor/"]
`)
	only := mustCfg(t, `feedback:
  enabled: true
  default_rules: false
  rules:
    - domain: api
      extensions: [".go"]
      paths: ["api/**"]
`)
	tests := []struct {
		cfg  *Config
		file string
		want string
	}{
		{defaults, "main.go", DomainBackend},
		{defaults, "cmd/spcstr/main.go", DomainBackend},
		{defaults, "ui/App.tsx", DomainFrontend},
		{defaults, "ui/util.ts", DomainFrontend}, // the flow: any code edit starts the loop
		{defaults, "src/a.ts", DomainFrontend},
		{defaults, "lib/b.js", DomainFrontend},
		{defaults, "esm/c.mjs", DomainFrontend},
		{defaults, "cjs/d.cjs", DomainFrontend},
		{defaults, "ui/App.vue", DomainFrontend},
		{defaults, "crates/x/src/lib.rs", DomainBackend},
		{defaults, "src/Main.java", DomainBackend},
		{defaults, "artifacts/Linux.Sys.vql", DomainCapability},
		{defaults, "nuclei-templates/http/cve-2024-1.yaml", DomainCapability},
		{defaults, "x/nuclei/dns.yml", DomainCapability},
		{defaults, "capabilities/portscan/main.go", DomainCapability},
		{defaults, "modules/y/capabilities/z.py", DomainCapability},
		{defaults, "config.yaml", ""},
		{defaults, "capabilities/README.md", ""},
		{defaults, "app/View.swift", ""}, // code no default rule routes (Unrouted)
		{defaults, "ui/Old.JSX", DomainFrontend},
		{defaults, "scripts/tool.py", DomainBackend},
		{defaults, ".claude/tools/lint/main.go", DomainTool}, // the path rule comes first
		{defaults, ".claude/tools/README.md", DomainTool},
		{defaults, "x/.claude/tools/a.go", DomainBackend},
		{defaults, "README.md", ""},
		{defaults, "go.mod", ""},
		{defaults, "/elsewhere/x.go", DomainBackend},
		{defaults, `pkg\win\x.go`, DomainBackend},
		{defaults, "", ""},
		// Integration-style domains are reachable: a path rule wins over
		// the extension defaults.
		{custom, ".claude/tools/lint/main.ts", "tools"},
		{custom, "capabilities/nuclei/x.yaml", "capabilities"},
		{custom, "deep/q/query.vql", "capabilities"},
		{custom, "integration/api_test.go", "integration"},
		{custom, "integration/fixtures.json", ""}, // both paths and extensions must match
		{custom, "pkg/model_gen.go", ""},
		{custom, "vendor/x/y.go", ""},
		{custom, "pkg/model.go", DomainBackend},
		{only, "api/v1/h.go", "api"},
		{only, "pkg/x.go", ""},
		{only, "ui/App.tsx", ""},
		{only, "x.vql", ""},
	}
	for _, tt := range tests {
		if got := tt.cfg.Route(tt.file); got != tt.want {
			t.Errorf("Route(%q) = %q, want %q", tt.file, got, tt.want)
		}
	}
	// A new domain gets <domain>-reviewer/-tester and the global test lead.
	if d := custom.Domains["tools"]; d.Reviewer.First() != "tools-reviewer" || d.Tester.First() != "tools-tester" || d.TestLead.First() != "test-lead" {
		t.Errorf("tools domain = %+v", d)
	}
}

// TestUnrouted: code that no rule routes is told apart from files that are
// not code and from files a rule ignores on purpose.
func TestUnrouted(t *testing.T) {
	defaults := mustCfg(t, "feedback:\n  enabled: true\n")
	only := mustCfg(t, "feedback:\n  enabled: true\n  default_rules: false\n  rules:\n    - {domain: api, extensions: [.go]}\n    - {ignore: true, paths: [\"gen/\"]}\n")
	tests := []struct {
		cfg  *Config
		file string
		want bool
	}{
		{defaults, "app/View.swift", true},
		{defaults, "scripts/deploy.sh", true},
		{defaults, "src/a.ts", false},
		{defaults, "main.go", false},
		{defaults, "README.md", false},
		{defaults, "go.mod", false},
		{defaults, "Makefile", false},
		{only, "src/a.ts", true}, // default rules off: TypeScript is not covered
		{only, "x.go", false},
		{only, "gen/x.ts", false}, // ignored on purpose
	}
	for _, tt := range tests {
		if got := tt.cfg.Unrouted(tt.file); got != tt.want {
			t.Errorf("Unrouted(%q) = %v, want %v", tt.file, got, tt.want)
		}
	}
	if got := defaults.UnroutedFiles([]string{"a.swift", "b.go", "a.swift", "c.lua", "d.md"}); !reflect.DeepEqual(got, []string{"a.swift", "c.lua"}) {
		t.Errorf("UnroutedFiles = %q", got)
	}
	if d := defaults.Domains[DomainCapability]; d.Reviewer.First() != "capability-reviewer" || d.Tester.First() != "capability-tester" {
		t.Errorf("capability domain = %+v", d)
	}
}

func TestConfig(t *testing.T) {
	c := mustCfg(t, `feedback:
  enabled: true
  test_lead: qa-lead
  domains:
    backend:
      reviewer: [go-reviewer, backend-reviewer]
    python:
      reviewer: backend-reviewer
      tester: backend-tester
    frontend:
      test_lead: ui-test-lead
  bypass_skills: [orchestrating-*]
  limits_file: limits.yaml
`)
	if !c.Enabled || c.LimitsFile != "limits.yaml" {
		t.Fatalf("config = %+v", c)
	}
	if got := c.Domains["backend"]; !reflect.DeepEqual(got.Reviewer, Names{"go-reviewer", "backend-reviewer"}) ||
		got.Tester.First() != "backend-tester" || got.TestLead.First() != "qa-lead" {
		t.Errorf("backend = %+v", got)
	}
	if got := c.Domains["frontend"]; got.TestLead.First() != "ui-test-lead" || got.Reviewer.First() != "frontend-reviewer" {
		t.Errorf("frontend = %+v", got)
	}
	if !c.Role("python", PhaseReview).Has("backend-reviewer") || !c.HasRole("qa-lead") || c.HasRole("general-purpose") {
		t.Errorf("roles wrong: %+v", c.Domains["python"])
	}
	off := mustCfg(t, "logs:\n  max_bytes: 10\n")
	if off.Enabled {
		t.Error("feedback enabled without configuration")
	}
	bad := []struct{ yaml, want string }{
		{"feedback:\n  enabled: yes-please\n", "enabled"},
		{"feedback:\n  enabeld: true\n", "enabeld"},
		{"feedback:\n  rules:\n    - domain: x\n", "needs paths or extensions"},
		{"feedback:\n  rules:\n    - paths: [a/]\n", "needs a domain"},
		{"feedback:\n  rules:\n    - domain: x\n      paths: [\"[\"]\n", "bad glob"},
		{"feedback:\n  domains:\n    backend:\n      reviewer: {a: 1}\n", "agent name"},
	}
	for _, b := range bad {
		_, err := loadCfg(t, b.yaml)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("LoadConfig(%q) error = %v, want %q", b.yaml, err, b.want)
		}
	}
}

func TestLoadLimits(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "limits.yaml")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return "limits.yaml"
	}
	l, err := LoadLimits(dir, "missing.yaml")
	if err != nil || !reflect.DeepEqual(l, DefaultLimits()) {
		t.Fatalf("missing file: %+v %v", l, err)
	}
	l, err = LoadLimits(dir, write(`inter_phase:
  max_feedback_iterations: 2
  max_consecutive_review_failures: 4
  domains:
    frontend:
      max_consecutive_test_failures: 6
intra_task:
  max_iterations: 10
orchestrator:
  test_fix_retries: 2
`))
	if err != nil {
		t.Fatal(err)
	}
	if l.MaxFeedbackIterations != 2 || l.MaxFailures("backend", PhaseReview) != 4 || l.MaxFailures("backend", PhaseTesting) != 3 ||
		l.MaxFailures("frontend", PhaseTesting) != 6 || l.MaxFailures("frontend", PhaseReview) != 4 || l.MaxFailures("x", PhaseTestPlanning) != 3 {
		t.Fatalf("limits = %+v", l)
	}
	if _, err := LoadLimits(dir, write("inter_phase: [unclosed\n")); err == nil {
		t.Fatal("no error for a broken limits file")
	}
}
