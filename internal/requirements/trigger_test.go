package requirements

import (
	"regexp"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/pyregex"
)

func TestTriggerMatches(t *testing.T) {
	commit := Trigger{Tool: "Bash", CommandPattern: `git\s+commit`, re: regexp.MustCompile(`git\s+commit`)}
	anchored := Trigger{Tool: "Bash", CommandPattern: `^npm publish`, re: regexp.MustCompile(`^npm publish`)}
	cases := []struct {
		name string
		tr   Trigger
		call Call
		want bool
	}{
		{"tool name", Trigger{Tool: "Edit"}, Call{Tool: "Edit"}, true},
		{"other tool", Trigger{Tool: "Edit"}, Call{Tool: "Write"}, false},
		{"names are case-sensitive", Trigger{Tool: "edit"}, Call{Tool: "Edit"}, false},
		{"bash without pattern guards every command", Trigger{Tool: "Bash"}, Call{Tool: "Bash", Command: "ls"}, true},
		{"pattern matches", commit, Call{Tool: "Bash", Command: "git commit -m x"}, true},
		{"pattern matches anywhere (search, not match)", commit, Call{Tool: "Bash", Command: "cd sub && git  commit -am wip"}, true},
		{"pattern does not match", commit, Call{Tool: "Bash", Command: "git status"}, false},
		{"pattern needs Bash", commit, Call{Tool: "Edit", Command: "git commit"}, false},
		{"anchored pattern", anchored, Call{Tool: "Bash", Command: "echo; npm publish"}, false},
		{"anchored pattern at start", anchored, Call{Tool: "Bash", Command: "npm publish --dry-run"}, true},
		{"mcp tool", Trigger{Tool: "mcp__github__create_pr"}, Call{Tool: "mcp__github__create_pr"}, true},
	}
	for _, c := range cases {
		if got := c.tr.Matches(c.call); got != c.want {
			t.Errorf("%s: Matches = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestReqTriggeredAndGuardsBash(t *testing.T) {
	cfg, err := LoadConfigFrom(t, "requirements:\n  r:\n    enabled: true\n    trigger_tools: [Edit, {tool: Bash, command_pattern: 'git\\s+push'}]\n  d:\n    enabled: true\n")
	if err != nil {
		t.Fatal(err)
	}
	r, d := cfg.Lookup("r"), cfg.Lookup("d")
	for _, c := range []struct {
		req  *Req
		call Call
		want bool
		bash bool
	}{
		{r, Call{Tool: "Edit"}, true, false},
		{r, Call{Tool: "Write"}, false, false},
		{r, Call{Tool: "Bash", Command: "git push origin"}, true, true},
		{r, Call{Tool: "Bash", Command: "git pull"}, false, false},
		{d, Call{Tool: "MultiEdit"}, true, false}, // default triggers
		{d, Call{Tool: "Write"}, true, false},
		{d, Call{Tool: "NotebookEdit"}, false, false},
		{d, Call{Tool: "Bash", Command: "rm -rf x"}, false, false},
	} {
		if got := c.req.Triggered(c.call); got != c.want {
			t.Errorf("%s.Triggered(%+v) = %v, want %v", c.req.Name, c.call, got, c.want)
		}
		if got := c.req.guardsBash(c.call); got != c.bash {
			t.Errorf("%s.guardsBash(%+v) = %v, want %v", c.req.Name, c.call, got, c.bash)
		}
	}
}

func TestPlanFile(t *testing.T) {
	for _, c := range []struct {
		path string
		want bool
	}{
		{"/home/u/.claude/plans/p.md", true},
		{"/work/proj/.claude/plans/feature.md", true},
		{".claude/plans/x.md", true},
		{"/work/proj/.claude/settings.json", false},
		{"/work/proj/plans/x.md", false},
		{"", false},
	} {
		if got := planFile(c.path, "/home/u"); got != c.want {
			t.Errorf("planFile(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}

func TestSkillMatches(t *testing.T) {
	for _, c := range []struct {
		configured, invoked string
		want                bool
	}{
		{"arch-review", "arch-review", true},
		{"arch-review", "/arch-review", true},
		{"arch-review", "requirements-framework:arch-review", true},
		{"arch-review", "other:arch-review", true},
		{"requirements-framework:arch-review", "requirements-framework:arch-review", true},
		{"requirements-framework:arch-review", "arch-review", true},
		{"requirements-framework:arch-review", "other:arch-review", false},
		{"requirements-framework:arch-review", "requirements-framework:plan-review", false},
		{"arch-review", "arch-review-2", false},
		{"", "arch-review", false},
		{"arch-review", "", false},
		{" /pre-commit ", "pre-commit", true},
	} {
		if got := SkillMatches(c.configured, c.invoked); got != c.want {
			t.Errorf("SkillMatches(%q, %q) = %v, want %v", c.configured, c.invoked, got, c.want)
		}
	}
}

func TestSatisfiedBy(t *testing.T) {
	cfg, err := LoadConfigFrom(t, `requirements:
  commit_plan:
    enabled: true
  adr_reviewed:
    enabled: true
  tdd_planned:
    enabled: false
  design_ok:
    enabled: true
    satisfied_by_skill: design-check
  auto_one:
    enabled: true
    auto_resolve_skill: my-plugin:fixer
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		skill string
		want  []string
	}{
		// Default mapping; tdd_planned is disabled, solid_reviewed not configured.
		{"requirements-framework:arch-review", []string{"commit_plan", "adr_reviewed"}},
		{"arch-review", []string{"commit_plan", "adr_reviewed"}},
		{"plan-review", []string{"commit_plan", "adr_reviewed"}},
		{"design-check", []string{"design_ok"}},
		{"someplugin:design-check", []string{"design_ok"}},
		{"my-plugin:fixer", []string{"auto_one"}},
		{"fixer", []string{"auto_one"}},
		{"other:fixer", nil},
		{"greet", nil},
	} {
		var got []string
		for _, r := range cfg.SatisfiedBy(c.skill) {
			got = append(got, r.Name)
		}
		if len(got) != len(c.want) || (len(got) > 0 && !equal(got, c.want)) {
			t.Errorf("SatisfiedBy(%q) = %v, want %v", c.skill, got, c.want)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// LoadConfigFrom loads a project whose .claude/requirements.yaml is text.
func LoadConfigFrom(t *testing.T, text string) (*Config, error) {
	t.Helper()
	root, getenv := writeCascade(t, cascade{project: text})
	cfg, err := LoadConfig(root, getenv)
	if err == nil && len(cfg.Warnings) > 0 {
		t.Fatalf("unexpected warnings: %q", cfg.Warnings)
	}
	return cfg, err
}

func TestSuggest(t *testing.T) {
	known := []string{"commit_plan", "pre_commit_review", "adr_reviewed"}
	for _, c := range []struct{ in, want string }{
		{"comit_plan", "commit_plan"},
		{"commit-plan", "commit_plan"},
		{"pre_commit", "pre_commit_review"},
		{"adr_review", "adr_reviewed"},
		{"zebra", ""},
	} {
		if got := Suggest(c.in, known); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A command_pattern written for Python's re works unchanged: RE2 compiles
// what it can; look-arounds and back-references go to the backtracking
// engine (here in-process, as in spcstr; spcstr-hook asks spcstr:
// cmd/spcstr-hook's TestPythonPatternsThroughSpcstr).
func TestPythonCommandPatterns(t *testing.T) {
	inProcess(t)
	cases := []struct {
		pattern string
		rE2     bool
		matches []string
		misses  []string
	}{
		{`git\s+commit`, true, []string{"git commit -m x", "cd a && git  commit"}, []string{"git status"}},
		{`git\s+commit(?!.*--amend)`, false, []string{"git commit -m x"}, []string{"git commit --amend", "git status"}},
		{`(?<!echo )git\s+push`, false, []string{"git push origin", "cd x; git push"}, []string{"echo git push"}},
		{`(?P<tool>npm|yarn)\s+publish`, true, []string{"yarn publish"}, []string{"npm install"}},
		{`(?P<q>['"]).*(?P=q)`, false, []string{`echo "x"`}, []string{`echo "x'`}},
		{`(\w+)\s+\1`, false, []string{"rm rm -rf"}, []string{"rm -rf"}},
		{`^git push\Z`, false, []string{"git push"}, []string{"git push origin"}},
	}
	for _, c := range cases {
		m, err := compilePattern(c.pattern)
		if err != nil {
			t.Errorf("%s: %v", c.pattern, err)
			continue
		}
		if _, isRE2 := m.(*regexp.Regexp); isRE2 != c.rE2 {
			t.Errorf("%s: RE2 = %v, want %v", c.pattern, isRE2, c.rE2)
		}
		tr := Trigger{Tool: "Bash", CommandPattern: c.pattern, re: m}
		for _, s := range c.matches {
			if !tr.Matches(Call{Tool: "Bash", Command: s}) {
				t.Errorf("%s does not match %q", c.pattern, s)
			}
		}
		for _, s := range c.misses {
			if tr.Matches(Call{Tool: "Bash", Command: s}) {
				t.Errorf("%s matches %q", c.pattern, s)
			}
		}
	}
	if _, err := compilePattern(`git(?=commit`); err == nil {
		t.Error("an invalid pattern compiled")
	}
	// A pattern that backtracks catastrophically does not hang the hook.
	m, err := compilePattern(`^(a+)+\1$`)
	if err != nil {
		t.Fatal(err)
	}
	if m.MatchString(strings.Repeat("a", 40) + "b") {
		t.Error("matched")
	}
	// Through the configuration: a requirement with a look-ahead is kept.
	cfg, err := LoadConfigFrom(t, "requirements:\n  r:\n    enabled: true\n    trigger_tools: [{tool: Bash, command_pattern: 'git\\s+commit(?!.*--amend)'}]\n")
	if err != nil || cfg.Lookup("r") == nil || len(cfg.Warnings) != 0 {
		t.Fatalf("config: %v %v", err, cfg.Warnings)
	}
	if !cfg.Lookup("r").Triggered(Call{Tool: "Bash", Command: "git commit -m x"}) || cfg.Lookup("r").Triggered(Call{Tool: "Bash", Command: "git commit --amend"}) {
		t.Error("look-ahead requirement does not trigger as Python would")
	}
}

// inProcess matches Python-only patterns with internal/pyregex in the test
// process, as spcstr does.
func inProcess(t *testing.T) {
	prev := MatchPython
	MatchPython = pyregex.Match
	t.Cleanup(func() { MatchPython = prev })
}

// checkPythonSyntax accepts what Python's re accepts and RE2 does not
// (look-arounds, atomic groups, back-references, \Z, possessive
// quantifiers) and still finds the syntax errors RE2 would.
func TestCheckPythonSyntax(t *testing.T) {
	for _, c := range []struct {
		pattern string
		ok      bool
	}{
		{`git\s+commit(?!.*--amend)`, true},
		{`(?<!echo )git\s+push`, true},
		{`(?<=x)y(?=z)`, true},
		{`(?>a+)b`, true},
		{`(\w+)\s+\1`, true},
		{`(?P<q>['"]).*(?P=q)`, true},
		{`^git push\Z`, true},
		{`a++b*+c?+d{2}+`, true},
		{`\++`, true},
		{`[(?=]x`, true},
		{`[]]\1`, true},
		{`git(?=commit`, false},
		{`(?<!x`, false},
		{`a**`, false},
		{`(?P=q`, false},
		{`[a-`, false},
		{`x{2,1}`, false},
	} {
		if err := checkPythonSyntax(c.pattern); (err == nil) != c.ok {
			t.Errorf("%s: err = %v, want ok %v", c.pattern, err, c.ok)
		}
	}
}

// Unset, MatchPython never matches a Python-only pattern and says why.
func TestPythonPatternsWithoutEngine(t *testing.T) {
	m, err := compilePattern(`git\s+commit(?!.*--amend)`)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := MatchPython(`git(?!x)`, "git"); ok || err == nil {
		t.Errorf("without an engine: ok %v, err %v", ok, err)
	}
	if m.MatchString("git commit -m x") {
		t.Error("matched without an engine")
	}
}

// A single_use requirement is used up by its own Bash trigger, or, when it
// guards no Bash command (Edit needs pre_commit_review), by a git commit.
func TestUsedUpBy(t *testing.T) {
	edit := &Req{Name: "review", Scope: ScopeSingleUse, Triggers: []Trigger{{Tool: "Edit"}, {Tool: "Write"}}}
	re, err := compilePattern(`npm\s+publish`)
	if err != nil {
		t.Fatal(err)
	}
	publish := &Req{Name: "release", Scope: ScopeSingleUse, Triggers: []Trigger{{Tool: "Bash", CommandPattern: `npm\s+publish`, re: re}}}
	for _, c := range []struct {
		req  *Req
		call Call
		want bool
	}{
		{edit, Call{Tool: "Bash", Command: "git commit -m x"}, true},
		{edit, Call{Tool: "Bash", Command: "git add . && git commit -am 'x'"}, true},
		{edit, Call{Tool: "Bash", Command: "git -C sub commit"}, true},
		{edit, Call{Tool: "Bash", Command: "git -c user.name=x commit --amend"}, true},
		{edit, Call{Tool: "Bash", Command: "git --no-pager commit"}, true},
		{edit, Call{Tool: "Bash", Command: "git status"}, false},
		{edit, Call{Tool: "Bash", Command: "git log --grep commit"}, false},
		{edit, Call{Tool: "Bash", Command: "echo git-commit"}, false},
		{edit, Call{Tool: "Edit"}, false},
		// Its own Bash trigger decides; a commit does not use it up.
		{publish, Call{Tool: "Bash", Command: "npm publish"}, true},
		{publish, Call{Tool: "Bash", Command: "git commit -m x"}, false},
	} {
		if got := c.req.UsedUpBy(c.call); got != c.want {
			t.Errorf("%s.UsedUpBy(%q) = %v, want %v", c.req.Name, c.call.Command, got, c.want)
		}
	}
}
