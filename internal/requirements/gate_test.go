package requirements_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/recorder"
)

const sid = "cad0ac4d-3933-45ad-9a1c-14aec05bb940"
const key = "cad0ac4d"

// project is a spcstr project on branch feature/auth with a requirements
// configuration, driven through the recorder as Claude Code would.
type project struct {
	t    *testing.T
	root string
	home string
	env  map[string]string
	now  time.Time
	// commits counts the commits commit made (the branch's head).
	commits int
}

func newProject(t *testing.T, config string) *project {
	t.Helper()
	p := &project{t: t, root: t.TempDir(), home: t.TempDir(), now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	p.write(".spcstr/.keep", "")
	p.write(".git/HEAD", "ref: refs/heads/feature/auth\n")
	if config != "" {
		p.write(".claude/requirements.yaml", config)
	}
	p.env = map[string]string{"HOME": p.home, "SPCSTR_REGISTRY": filepath.Join(p.home, "sessions.json")}
	return p
}

func (p *project) write(rel, text string) {
	p.t.Helper()
	path := filepath.Join(p.root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// hook runs one event through recorder.Run with the default gates and
// returns the raw answer ("" when spcstr said nothing).
func (p *project) hook(payload map[string]any) string {
	p.t.Helper()
	payload["cwd"] = p.root
	if _, ok := payload["session_id"]; !ok {
		payload["session_id"] = sid
	}
	in, _ := json.Marshal(payload)
	var out, errOut bytes.Buffer
	p.now = p.now.Add(time.Second)
	now := p.now
	code := recorder.Run(context.Background(), recorder.Options{
		Stdin: bytes.NewReader(in), Stdout: &out, Stderr: &errOut,
		Getenv: func(k string) string { return p.env[k] },
		Now:    func() time.Time { return now },
		Alive:  func(int) bool { return true },
	})
	if code != 0 {
		p.t.Fatalf("exit code %d", code)
	}
	if errOut.Len() > 0 {
		p.t.Logf("stderr: %s", errOut.String())
	}
	return strings.TrimSpace(out.String())
}

func (p *project) pre(tool string, input map[string]any) string {
	return p.hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_1"})
}

func (p *project) post(tool string, input map[string]any, resp any) string {
	return p.hook(map[string]any{"hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": input, "tool_response": resp, "tool_use_id": "toolu_1"})
}

func (p *project) stop(active bool) string {
	return p.hook(map[string]any{"hook_event_name": "Stop", "stop_hook_active": active})
}

// commit moves the branch's head to a new commit, as `git commit` does.
func (p *project) commit() {
	p.t.Helper()
	p.commits++
	p.write(".git/refs/heads/feature/auth", fmt.Sprintf("%040x\n", p.commits))
}

func (p *project) state() *requirements.File {
	p.t.Helper()
	f, err := requirements.Locate(p.root).Load()
	if err != nil {
		p.t.Fatal(err)
	}
	return f
}

func (p *project) reqs() *requirements.Project {
	p.t.Helper()
	proj, err := requirements.Open(p.root, func(k string) string { return p.env[k] })
	if err != nil {
		p.t.Fatal(err)
	}
	return proj
}

func decode(t *testing.T, out string) map[string]any {
	t.Helper()
	if out == "" {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("answer is not one JSON object: %v\n%s", err, out)
	}
	return m
}

// denyReason returns the PreToolUse deny reason, checking the JSON shape
// Claude Code reads (docs/answers.md).
func denyReason(t *testing.T, out string) string {
	t.Helper()
	m := decode(t, out)
	h, _ := m["hookSpecificOutput"].(map[string]any)
	if h == nil || h["hookEventName"] != "PreToolUse" || h["permissionDecision"] != "deny" {
		t.Fatalf("not a PreToolUse deny: %s", out)
	}
	if _, ok := m["decision"]; ok {
		t.Errorf("deny must not use the top-level decision field: %s", out)
	}
	r, _ := h["permissionDecisionReason"].(string)
	return r
}

func blockReason(t *testing.T, out string) string {
	t.Helper()
	m := decode(t, out)
	if m["decision"] != "block" {
		t.Fatalf("not a Stop block: %s", out)
	}
	if _, ok := m["hookSpecificOutput"]; ok {
		t.Errorf("Stop block carries hookSpecificOutput: %s", out)
	}
	r, _ := m["reason"].(string)
	return r
}

const planConfig = `requirements:
  commit_plan:
    enabled: true
    scope: session
    message: "Plan first (session {session_id}, branch {branch})."
    checklist: [Write the plan]
  design_ok:
    enabled: true
    scope: session
    trigger_tools: [Write]
    satisfied_by_skill: design-check
  pre_commit_review:
    enabled: true
    scope: single_use
    trigger_tools:
      - tool: Bash
        command_pattern: "git\\s+commit"
  disabled_one:
    enabled: false
    trigger_tools: [Edit]
`

func TestDenyThenSkillThenAllow(t *testing.T) {
	p := newProject(t, planConfig)
	edit := map[string]any{"file_path": filepath.Join(p.root, "a.go"), "old_string": "a", "new_string": "b"}

	reason := denyReason(t, p.pre("Edit", edit))
	for _, want := range []string{
		"commit_plan (session scope)", "Plan first (session cad0ac4d, branch feature/auth).", "⬜ 1. Write the plan",
		"/requirements-framework:arch-review", "spcstr req satisfy commit_plan --session cad0ac4d",
	} {
		if !strings.Contains(reason, want) {
			t.Errorf("deny reason lacks %q:\n%s", want, reason)
		}
	}
	if strings.Contains(reason, "disabled_one") || strings.Contains(reason, "design_ok") {
		t.Errorf("deny reason names a requirement that does not apply:\n%s", reason)
	}
	if p.state().IsTriggered("commit_plan", "session", key) {
		t.Error("a denied call marked the requirement triggered")
	}

	// A Skill that maps to nothing changes nothing.
	if out := p.post("Skill", map[string]any{"skill": "greet"}, map[string]any{"success": true, "commandName": "greet"}); out != "" {
		t.Errorf("unrelated skill answered %s", out)
	}
	// A Skill that failed to load satisfies nothing.
	p.post("Skill", map[string]any{"skill": "requirements-framework:plan-review"}, map[string]any{"success": false})
	if p.state().IsSatisfied("commit_plan", "session", key, 1e12) {
		t.Fatal("a failed Skill call satisfied the requirement")
	}
	out := p.post("Skill", map[string]any{"skill": "plan-review"}, map[string]any{"success": true, "commandName": "plan-review"})
	if ctx := decode(t, out)["hookSpecificOutput"].(map[string]any)["additionalContext"]; !strings.Contains(ctx.(string), "commit_plan") {
		t.Errorf("PostToolUse context = %v", ctx)
	}
	if out := p.pre("Edit", edit); out != "" {
		t.Fatalf("satisfied Edit answered %s", out)
	}
	f := p.state()
	if !f.IsTriggered("commit_plan", "session", key) || !f.IsSatisfied("commit_plan", "session", key, 1e12) {
		t.Error("allowed call not marked triggered")
	}
	e := f.Requirements["commit_plan"].Sessions[key]
	var meta bytes.Buffer
	_ = json.Compact(&meta, e.Metadata)
	if e.SatisfiedBy != "skill" || meta.String() != `{"skill":"plan-review"}` {
		t.Errorf("entry = %+v metadata %s", e, e.Metadata)
	}
	// Write needs design_ok too; only the unmet one is listed.
	reason = denyReason(t, p.pre("Write", map[string]any{"file_path": filepath.Join(p.root, "b.go")}))
	if !strings.Contains(reason, "design_ok") || strings.Contains(reason, "- commit_plan") || !strings.Contains(reason, "run /design-check") {
		t.Errorf("Write deny reason:\n%s", reason)
	}
	// Stop: everything triggered is satisfied.
	if out := p.stop(false); out != "" {
		t.Errorf("Stop answered %s", out)
	}
	// decisions.json holds the deny and the allow.
	dec, _ := os.ReadFile(filepath.Join(p.root, ".spcstr/logs/decisions.json"))
	if !bytes.Contains(dec, []byte(`"decision":"deny","reason":"unsatisfied:commit_plan"`)) || !bytes.Contains(dec, []byte(`"decision":"allow","reason":"satisfied:commit_plan"`)) {
		t.Errorf("decisions.json:\n%s", dec)
	}
}

func TestDenyListsEveryUnmetRequirement(t *testing.T) {
	p := newProject(t, `requirements:
  a:
    enabled: true
  b:
    enabled: true
    scope: branch
`)
	reason := denyReason(t, p.pre("Edit", map[string]any{"file_path": "/x"}))
	if !strings.Contains(reason, "- a (session scope)") || !strings.Contains(reason, "- b (branch scope)") || !strings.Contains(reason, "spcstr req satisfy a b --session cad0ac4d") {
		t.Errorf("reason:\n%s", reason)
	}
}

func TestPlanFilesAreNotGated(t *testing.T) {
	p := newProject(t, planConfig)
	if out := p.pre("Edit", map[string]any{"file_path": filepath.Join(p.root, ".claude/plans/plan.md")}); out != "" {
		t.Errorf("plan file edit answered %s", out)
	}
}

// single_use is cleared after the guarded command completes,
// not after a failed one and not after other commands.
func TestSingleUseClearedAfterGuardedCommand(t *testing.T) {
	p := newProject(t, planConfig)
	commit := map[string]any{"command": "git commit -m 'x'"}
	denyReason(t, p.pre("Bash", commit))
	if out := p.pre("Bash", map[string]any{"command": "git status"}); out != "" {
		t.Errorf("unguarded command answered %s", out)
	}
	if _, _, err := p.reqs().Satisfy(context.Background(), sid, []string{"pre_commit_review"}, false); err != nil {
		t.Fatal(err)
	}
	if out := p.pre("Bash", commit); out != "" {
		t.Fatalf("satisfied commit answered %s", out)
	}
	// A failing commit does not use the review up.
	p.hook(map[string]any{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_input": commit, "error": "Exit code 1"})
	// Another command completing does not either.
	p.post("Bash", map[string]any{"command": "git status"}, map[string]any{"stdout": ""})
	if !p.state().IsSatisfied("pre_commit_review", "single_use", key, 1e12) {
		t.Fatal("single_use cleared too early")
	}
	p.pre("Bash", commit)
	p.commit()
	out := p.post("Bash", commit, map[string]any{"stdout": "[feature/auth 1234] x"})
	if !strings.Contains(out, "used up") {
		t.Errorf("PostToolUse answer %s", out)
	}
	f := p.state()
	if f.IsSatisfied("pre_commit_review", "single_use", key, 1e12) || f.IsTriggered("pre_commit_review", "single_use", key) {
		t.Error("single_use not cleared after the commit")
	}
	if s := f.Requirements["pre_commit_review"].Sessions; len(s) != 0 {
		t.Errorf("sessions = %v, want emptied (docs/requirements.md)", s)
	}
	denyReason(t, p.pre("Bash", commit))
}

// A single_use requirement is spent only by a commit that moved HEAD: a
// command that only mentions `git commit` leaves it satisfied, whether a
// Bash trigger guards it or (pre_commit_review in the seed's scenario) it
// is triggered by edits and a commit spends it. A PostToolUse whose
// PreToolUse was not seen spends it, as the framework does.
func TestSingleUseSpentOnlyByRealCommit(t *testing.T) {
	bashGuard := "requirements:\n  r:\n    enabled: true\n    scope: single_use\n    trigger_tools:\n      - tool: Bash\n        command_pattern: \"git\\\\s+commit\"\n"
	editGuard := "requirements:\n  r:\n    enabled: true\n    scope: single_use\n    trigger_tools: [Edit]\n"
	for _, cfg := range []struct{ name, config string }{{"bash trigger", bashGuard}, {"edit trigger", editGuard}} {
		for _, tc := range []struct {
			name    string
			command string
			commit  bool // HEAD moves while the command runs
			noPre   bool // the PreToolUse was not seen
			spent   bool
		}{
			{"echo", "echo git commit", false, false, false},
			{"grep", "git log | grep 'git commit -m'", false, false, false},
			{"commit that failed quietly", "git commit -m x || true", false, false, false},
			{"real commit", "git commit -m x", true, false, true},
			{"first commit of an unborn branch", "git add . && git commit -m x", true, false, true},
			{"no PreToolUse seen", "echo git commit", false, true, true},
		} {
			t.Run(cfg.name+"/"+tc.name, func(t *testing.T) {
				p := newProject(t, cfg.config)
				if tc.name != "first commit of an unborn branch" {
					p.commit()
				}
				if cfg.name == "edit trigger" {
					p.pre("Edit", map[string]any{"file_path": "/x"})
				}
				if _, _, err := p.reqs().Satisfy(context.Background(), sid, []string{"r"}, false); err != nil {
					t.Fatal(err)
				}
				if cfg.name == "edit trigger" {
					p.pre("Edit", map[string]any{"file_path": "/x"})
				}
				in := map[string]any{"command": tc.command}
				if !tc.noPre {
					if out := p.pre("Bash", in); out != "" {
						t.Fatalf("PreToolUse answered %s", out)
					}
				}
				if tc.commit {
					p.commit()
				}
				out := p.post("Bash", in, map[string]any{"stdout": ""})
				if got := !p.state().IsSatisfied("r", "single_use", key, 1e12); got != tc.spent {
					t.Errorf("spent = %v, want %v (answer %s)", got, tc.spent, out)
				}
				if strings.Contains(out, "used up") != tc.spent {
					t.Errorf("answer %s", out)
				}
				if !tc.spent {
					raw, _ := os.ReadFile(requirements.Locate(p.root).Path)
					if bytes.Contains(raw, []byte("spcstr_commit_head")) {
						t.Errorf("HEAD record left behind:\n%s", raw)
					}
				}
			})
		}
	}
}

// Stop blocks only for requirements triggered this session
// in a verified scope that are not satisfied; stop_hook_active lets it go;
// the recorder's guard lets the fourth blocked Stop in a row through.
func TestStopVerification(t *testing.T) {
	p := newProject(t, planConfig+`  branch_req:
    enabled: true
    scope: branch
    trigger_tools: [NotebookEdit]
`)
	if out := p.stop(false); out != "" {
		t.Fatalf("Stop with nothing triggered answered %s", out)
	}
	ctx := context.Background()
	r := p.reqs()
	if _, _, err := r.Satisfy(ctx, sid, []string{"commit_plan", "pre_commit_review"}, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Satisfy(ctx, "", []string{"branch_req"}, false); err != nil {
		t.Fatal(err)
	}
	p.pre("Edit", map[string]any{"file_path": "/x"})
	p.pre("Bash", map[string]any{"command": "git commit -m x"})
	p.pre("NotebookEdit", map[string]any{"notebook_path": "/n.ipynb"})
	// Satisfied and triggered: fine.
	if out := p.stop(false); out != "" {
		t.Fatalf("Stop answered %s", out)
	}
	// Cleared by hand after use: Stop asks for it again.
	if _, _, err := r.Clear(ctx, sid, []string{"pre_commit_review"}, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Clear(ctx, sid, []string{"branch_req"}, false); err != nil {
		t.Fatal(err)
	}
	reason := blockReason(t, p.stop(false))
	if !strings.Contains(reason, "Unsatisfied requirements: pre_commit_review") || !strings.Contains(reason, "Fallback: spcstr req satisfy pre_commit_review --session cad0ac4d") {
		t.Errorf("block reason:\n%s", reason)
	}
	if strings.Contains(reason, "branch_req") || strings.Contains(reason, "commit_plan") {
		t.Errorf("block names a requirement outside verify_scopes or satisfied:\n%s", reason)
	}
	if out := p.stop(true); out != "" {
		t.Errorf("Stop with stop_hook_active answered %s", out)
	}
	// Another session on the branch never triggered it: no block there.
	if out := p.hook(map[string]any{"hook_event_name": "Stop", "session_id": "0b1c2d3e-0000-4000-8000-000000000000"}); out != "" {
		t.Errorf("other session's Stop answered %s", out)
	}
	// Loop guard (the allowed Stop above reset it): three blocks in a row
	// without progress, then an escalation.
	blockReason(t, p.stop(false))
	blockReason(t, p.stop(false))
	blockReason(t, p.stop(false))
	m := decode(t, p.stop(false))
	if m["decision"] == "block" || !strings.Contains(m["systemMessage"].(string), "pre_commit_review") {
		t.Errorf("fourth Stop in a row: %v", m)
	}
}

func TestStopVerifyScopesAndSwitch(t *testing.T) {
	cfg := `requirements:
  branch_req:
    enabled: true
    scope: branch
hooks:
  stop:
    verify_scopes: [session, branch]
`
	p := newProject(t, cfg)
	ctx := context.Background()
	if _, _, err := p.reqs().Satisfy(ctx, "", []string{"branch_req"}, false); err != nil {
		t.Fatal(err)
	}
	p.pre("Edit", map[string]any{"file_path": "/x"})
	if _, _, err := p.reqs().Clear(ctx, "", []string{"branch_req"}, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(blockReason(t, p.stop(false)), "branch_req") {
		t.Error("branch scope not verified")
	}
	p.write(".claude/requirements.local.yaml", "hooks:\n  stop:\n    verify_requirements: false\n")
	if out := p.stop(false); out != "" {
		t.Errorf("verify_requirements: false still answered %s", out)
	}
}

func TestSessionStartContextAndWarningOnce(t *testing.T) {
	p := newProject(t, planConfig+"  broken:\n    scope: sometimes\n")
	m := decode(t, p.hook(map[string]any{"hook_event_name": "SessionStart", "source": "startup"}))
	h := m["hookSpecificOutput"].(map[string]any)
	if h["hookEventName"] != "SessionStart" {
		t.Errorf("hookEventName = %v", h["hookEventName"])
	}
	ctx := h["additionalContext"].(string)
	for _, want := range []string{"branch feature/auth (session cad0ac4d)", "⬜ commit_plan (session scope): NOT satisfied", "run /requirements-framework:arch-review"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("context lacks %q:\n%s", want, ctx)
		}
	}
	if strings.Contains(ctx, "disabled_one") {
		t.Errorf("context lists a disabled requirement:\n%s", ctx)
	}
	if sys, _ := m["systemMessage"].(string); !strings.Contains(sys, `requirement "broken"`) || !strings.Contains(sys, "scope must be one of") {
		t.Errorf("systemMessage = %q", sys)
	}
	// Once per session: the next event does not repeat it; the other
	// requirements keep working.
	out := p.pre("Edit", map[string]any{"file_path": "/x"})
	if strings.Contains(out, "systemMessage") {
		t.Errorf("warning repeated: %s", out)
	}
	denyReason(t, out)
	// A new session is warned again.
	out = p.hook(map[string]any{"hook_event_name": "SessionStart", "session_id": "0b1c2d3e-0000-4000-8000-000000000000"})
	if !strings.Contains(out, "broken") {
		t.Errorf("new session not warned: %s", out)
	}
}

func TestSessionStartInjectContextOff(t *testing.T) {
	p := newProject(t, "requirements:\n  r:\n    enabled: true\nhooks:\n  session_start:\n    inject_context: false\n")
	if out := p.hook(map[string]any{"hook_event_name": "SessionStart"}); out != "" {
		t.Errorf("answered %s", out)
	}
}

func TestSessionEndClearSessionState(t *testing.T) {
	for _, clear := range []bool{false, true} {
		cfg := "requirements:\n  r:\n    enabled: true\n  b:\n    enabled: true\n    scope: branch\n  u:\n    enabled: true\n    scope: single_use\n"
		if clear {
			cfg += "hooks:\n  session_end:\n    clear_session_state: true\n"
		}
		p := newProject(t, cfg)
		other := "0b1c2d3e-0000-4000-8000-000000000000"
		ctx := context.Background()
		for _, s := range []string{sid, other} {
			if _, _, err := p.reqs().Satisfy(ctx, s, []string{"r", "b", "u"}, false); err != nil {
				t.Fatal(err)
			}
		}
		p.hook(map[string]any{"hook_event_name": "SessionEnd", "reason": "other"})
		f := p.state()
		// The framework's clear() deletes a session-scoped requirement
		// whole: this session's, other sessions' and any branch-level
		// satisfaction. Other scopes are not touched.
		_, kept := f.Requirements["r"]
		if kept == clear || f.IsSatisfied("r", "session", "0b1c2d3e", 1e12) == clear {
			t.Errorf("clear_session_state=%v: r kept = %v", clear, kept)
		}
		if !f.IsSatisfied("b", "branch", key, 1e12) || !f.IsSatisfied("u", "single_use", key, 1e12) {
			t.Errorf("clear_session_state=%v cleared another scope", clear)
		}
	}
}

func TestInactiveWithoutProjectConfig(t *testing.T) {
	p := newProject(t, "")
	p.write("home-config", "")
	if err := os.MkdirAll(filepath.Join(p.home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A global file alone does not gate this project.
	if err := os.WriteFile(filepath.Join(p.home, ".claude/requirements.yaml"), []byte("requirements:\n  r:\n    enabled: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := p.pre("Edit", map[string]any{"file_path": "/x"}); out != "" {
		t.Errorf("answered %s", out)
	}
	if _, err := os.Stat(filepath.Join(p.root, ".git/requirements")); err == nil {
		t.Error("state folder created without configuration")
	}
}

func TestSkipAndDisabled(t *testing.T) {
	p := newProject(t, "requirements:\n  r:\n    enabled: true\n")
	p.env["CLAUDE_SKIP_REQUIREMENTS"] = "1"
	if out := p.pre("Edit", map[string]any{"file_path": "/x"}); out != "" {
		t.Errorf("CLAUDE_SKIP_REQUIREMENTS: answered %s", out)
	}
	delete(p.env, "CLAUDE_SKIP_REQUIREMENTS")
	p.write(".claude/requirements.local.yaml", "enabled: false\n")
	if out := p.pre("Edit", map[string]any{"file_path": "/x"}); out != "" {
		t.Errorf("enabled: false: answered %s", out)
	}
}

// Dry run: the deny is logged, not enforced, and the call is not counted as
// triggered (the gate denied it).
func TestDryRun(t *testing.T) {
	p := newProject(t, "requirements:\n  r:\n    enabled: true\n")
	p.env["SPCSTR_DRY_RUN"] = "1"
	if out := p.pre("Edit", map[string]any{"file_path": "/x"}); strings.Contains(out, "permissionDecision") ||
		!strings.Contains(out, "spcstr dry run: requirements would deny this Edit call at PreToolUse (unsatisfied:r); not enforced") {
		t.Errorf("dry run denied: %s", out)
	}
	dec, _ := os.ReadFile(filepath.Join(p.root, ".spcstr/logs/decisions.json"))
	if !bytes.Contains(dec, []byte(`"decision":"deny"`)) || !bytes.Contains(dec, []byte(`"dry_run":true`)) {
		t.Errorf("decisions.json: %s", dec)
	}
}

// A state file the gate cannot parse is set aside, the user is told, and
// the hook goes on (the requirement is simply unsatisfied again).
func TestCorruptStateDuringHook(t *testing.T) {
	p := newProject(t, "requirements:\n  r:\n    enabled: true\n")
	p.write(".git/requirements/feature-auth.json", "{not json")
	out := p.pre("Edit", map[string]any{"file_path": "/x"})
	denyReason(t, out)
	if !strings.Contains(out, "set aside") {
		t.Errorf("no notice: %s", out)
	}
	if m, _ := filepath.Glob(filepath.Join(p.root, ".git/requirements/feature-auth.json.corrupt-*")); len(m) != 1 {
		t.Errorf("set-aside files: %v", m)
	}
}

// A slash command the user types runs its skill as the Skill tool does, so
// it satisfies the same requirements.
func TestSlashCommandSatisfiesLikeSkill(t *testing.T) {
	p := newProject(t, planConfig)
	expand := func(typ, name string) string {
		return p.hook(map[string]any{"hook_event_name": "UserPromptExpansion", "expansion_type": typ, "command_name": name,
			"prompt": "/" + name + " now"})
	}
	if out := expand("mcp_prompt", "design-check"); out != "" || p.state().IsSatisfied("design_ok", "session", key, 1e12) {
		t.Fatalf("an MCP prompt satisfied a requirement: %s", out)
	}
	if out := expand("slash_command", "greet"); out != "" {
		t.Errorf("unmapped command answered %s", out)
	}
	out := expand("slash_command", "design-check")
	if !strings.Contains(out, "design_ok (session scope)") {
		t.Errorf("answer %s", out)
	}
	f := p.state()
	if !f.IsSatisfied("design_ok", "session", key, 1e12) || f.IsSatisfied("commit_plan", "session", key, 1e12) {
		t.Fatal("the slash command satisfied the wrong requirements")
	}
	if by := f.Requirements["design_ok"].Sessions[key].SatisfiedBy; by != "skill" {
		t.Errorf("satisfied_by = %q", by)
	}
}

// A single_use requirement satisfied for the whole branch stays satisfied
// after the guarded command: the message says so instead of "used up".
func TestSingleUseBranchLevelStays(t *testing.T) {
	p := newProject(t, planConfig)
	commit := map[string]any{"command": "git commit -m 'x'"}
	if _, _, err := p.reqs().Satisfy(context.Background(), sid, []string{"pre_commit_review"}, true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.reqs().Satisfy(context.Background(), sid, []string{"pre_commit_review"}, false); err != nil {
		t.Fatal(err)
	}
	if out := p.pre("Bash", commit); out != "" {
		t.Fatalf("satisfied commit answered %s", out)
	}
	p.commit()
	out := p.post("Bash", commit, map[string]any{"stdout": "ok"})
	if strings.Contains(out, "used up") || !strings.Contains(out, "stays satisfied") || !strings.Contains(out, "feature/auth") {
		t.Errorf("PostToolUse answer %s", out)
	}
	if !p.state().IsSatisfied("pre_commit_review", "single_use", key, 1e12) {
		t.Error("branch-level satisfaction lost")
	}
	if out := p.pre("Bash", commit); out != "" {
		t.Errorf("next commit answered %s", out)
	}
}
