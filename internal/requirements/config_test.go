package requirements

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type cascade struct {
	global, project, local string // "" = no file
}

func writeCascade(t *testing.T, c cascade) (root string, getenv func(string) string) {
	t.Helper()
	home, root := t.TempDir(), t.TempDir()
	write := func(path, text string) {
		if text == "" {
			return
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, p, l := ConfigPaths(root, home)
	write(g, c.global)
	write(p, c.project)
	write(l, c.local)
	return root, func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
}

func TestCascade(t *testing.T) {
	cases := []struct {
		name  string
		files cascade
		// want: requirement name → scope (absent = not configured)
		want     map[string]string
		enabled  map[string]bool
		order    []string
		warnings []string // substrings, one per expected warning
		hooks    *Hooks
	}{
		{
			name: "local wins over project over global",
			files: cascade{
				global:  "requirements:\n  commit_plan:\n    enabled: true\n    scope: session\n",
				project: "requirements:\n  commit_plan:\n    scope: branch\n",
				local:   "requirements:\n  commit_plan:\n    scope: session\n",
			},
			want:    map[string]string{"commit_plan": ScopeSession},
			enabled: map[string]bool{"commit_plan": true},
		},
		{
			name: "project deep-merges into global: keys it does not set are inherited",
			files: cascade{
				global:  "requirements:\n  commit_plan:\n    enabled: true\n    message: from global\n  global_only:\n    enabled: true\n",
				project: "requirements:\n  commit_plan:\n    scope: branch\n  project_only:\n    scope: permanent\n",
			},
			want:    map[string]string{"commit_plan": ScopeBranch, "global_only": ScopeSession, "project_only": ScopePermanent},
			enabled: map[string]bool{"commit_plan": true, "global_only": true, "project_only": false},
			order:   []string{"commit_plan", "global_only", "project_only"},
		},
		{
			name: "inherit: false replaces the global file entirely",
			files: cascade{
				global:  "requirements:\n  global_only:\n    enabled: true\nhooks:\n  stop:\n    verify_requirements: false\n",
				project: "inherit: false\nrequirements:\n  mine:\n    enabled: true\n",
				local:   "requirements:\n  mine:\n    scope: single_use\n",
			},
			want:  map[string]string{"mine": ScopeSingleUse},
			hooks: &Hooks{StopVerify: true, VerifyScopes: []string{ScopeSession}, InjectContext: true},
		},
		{
			name:  "global only: defaults",
			files: cascade{global: "requirements:\n  r:\n    enabled: true\n"},
			want:  map[string]string{"r": ScopeSession},
			hooks: &Hooks{StopVerify: true, VerifyScopes: []string{ScopeSession}, InjectContext: true},
		},
		{
			name: "hooks section",
			files: cascade{project: "hooks:\n  stop:\n    verify_requirements: true\n    verify_scopes: [session, branch]\n" +
				"  session_end:\n    clear_session_state: true\n  session_start:\n    inject_context: false\n"},
			want:  map[string]string{},
			hooks: &Hooks{StopVerify: true, VerifyScopes: []string{ScopeSession, ScopeBranch}, ClearSessionState: true},
		},
		{
			name: "invalid hook values warn and keep defaults",
			files: cascade{project: "hooks:\n  stop:\n    verify_requirements: sometimes\n    verify_scopes: [session, galaxy]\n" +
				"  session_start: yes-please\n"},
			want:     map[string]string{},
			warnings: []string{"verify_requirements must be true or false", `unknown scope "galaxy"`, "hooks.session_start must be a mapping"},
			hooks:    &Hooks{StopVerify: true, VerifyScopes: []string{ScopeSession}, InjectContext: true},
		},
		{
			name: "invalid requirements are dropped, the rest keep working",
			files: cascade{project: `requirements:
  good:
    enabled: true
  bad_scope:
    scope: forever
  bad_enabled:
    enabled: "yes"
  bad_triggers:
    trigger_tools: Edit
  bad_pattern:
    trigger_tools:
      - {tool: Bash, command_pattern: "git(?=commit"}
  pattern_not_bash:
    trigger_tools:
      - {tool: Edit, command_pattern: "x"}
  no_tool:
    trigger_tools:
      - {command_pattern: "x"}
  dynamic:
    type: dynamic
    calculator: branch_size_calculator
  bad_checklist:
    checklist: [1, 2]
  not_a_map: true
  bad_skill:
    satisfied_by_skill: ""
`},
			want: map[string]string{"good": ScopeSession},
			warnings: []string{
				`"bad_scope"`, `"bad_enabled"`, `"bad_triggers"`, `"bad_pattern"`, `"pattern_not_bash"`,
				`"no_tool"`, `"dynamic"`, `"bad_checklist"`, `"not_a_map"`, `"bad_skill"`,
			},
		},
		{
			name:     "a file that does not parse is skipped with a warning",
			files:    cascade{global: "requirements:\n  g:\n    enabled: true\n", project: "requirements: [\n", local: "requirements:\n  l:\n    enabled: true\n"},
			want:     map[string]string{"g": ScopeSession, "l": ScopeSession},
			warnings: []string{"requirements.yaml: not valid YAML, file ignored"},
		},
		{
			name:     "top level must be a mapping",
			files:    cascade{project: "- a\n- b\n"},
			want:     map[string]string{},
			warnings: []string{"top level must be a mapping"},
		},
		{
			name:  "empty files are fine",
			files: cascade{project: "# nothing yet\n", local: "\n"},
			want:  map[string]string{},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, getenv := writeCascade(t, c.files)
			cfg, err := LoadConfig(root, getenv)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			var order []string
			for _, r := range cfg.Requirements {
				got[r.Name] = r.Scope
				order = append(order, r.Name)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("requirements = %v, want %v", got, c.want)
			}
			for name, want := range c.enabled {
				if r := cfg.Lookup(name); r == nil || r.Enabled != want {
					t.Errorf("%s enabled = %v, want %v", name, r != nil && r.Enabled, want)
				}
			}
			if c.order != nil && !reflect.DeepEqual(order, c.order) {
				t.Errorf("order = %v, want %v", order, c.order)
			}
			if len(cfg.Warnings) != len(c.warnings) {
				t.Errorf("warnings = %q, want %d", cfg.Warnings, len(c.warnings))
			}
			for _, w := range c.warnings {
				found := false
				for _, g := range cfg.Warnings {
					if strings.Contains(g, w) {
						found = true
					}
				}
				if !found {
					t.Errorf("no warning mentions %s; warnings: %q", w, cfg.Warnings)
				}
			}
			if c.hooks != nil && !reflect.DeepEqual(cfg.Hooks, *c.hooks) {
				t.Errorf("hooks = %+v, want %+v", cfg.Hooks, *c.hooks)
			}
		})
	}
}

func TestConfigDetails(t *testing.T) {
	root, getenv := writeCascade(t, cascade{project: `enabled: false
requirements:
  pre_commit_review:
    enabled: true
    scope: single_use
    trigger_tools:
      - Edit
      - tool: Bash
        command_pattern: "git\\s+commit"
    message: "Review {branch} in {session_id}"
    checklist: [tests pass, diff read]
    satisfied_by_skill: my-review
    auto_resolve_skill: /other:auto-review
    description: ignored extra key
`})
	if Configured(root) != true {
		t.Error("Configured = false with a project file")
	}
	cfg, err := LoadConfig(root, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Enabled || len(cfg.EnabledReqs()) != 0 {
		t.Error("top-level enabled: false not honoured")
	}
	r := cfg.Lookup("pre_commit_review")
	if r == nil {
		t.Fatalf("missing; warnings %q", cfg.Warnings)
	}
	if len(r.Triggers) != 2 || r.Triggers[1].String() != `Bash /git\s+commit/` {
		t.Errorf("triggers = %v", r.Triggers)
	}
	if got := r.ExpandMessage("abc12345", "feature/x"); got != "Review feature/x in abc12345" {
		t.Errorf("message = %q", got)
	}
	if got := r.Skills(); !reflect.DeepEqual(got, []string{"my-review", "/other:auto-review", "requirements-framework:pre-commit"}) {
		t.Errorf("skills = %q", got)
	}
	if !reflect.DeepEqual(r.Checklist, []string{"tests pass", "diff read"}) {
		t.Errorf("checklist = %q", r.Checklist)
	}
	if d := (&Req{Name: "x"}).ExpandMessage("k", "b"); d != `Requirement "x" not satisfied.` {
		t.Errorf("default message = %q", d)
	}
}

func TestConfiguredNeedsAProjectFile(t *testing.T) {
	root, _ := writeCascade(t, cascade{global: "requirements:\n  r:\n    enabled: true\n"})
	if Configured(root) {
		t.Error("a global file alone turned requirements on in a project")
	}
	root, _ = writeCascade(t, cascade{local: "requirements: {}\n"})
	if !Configured(root) {
		t.Error("a local file alone did not count")
	}
}
