package recorder

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// The seed's full gate set on at once. Each gate (every strategy, the
// feedback loop, requirements) decides every event exactly as it does
// alone, and the answer merges them: a Stop several gates block carries
// every reason, attributed.

// seedGates are the config.yaml fragments (or the requirements file) that
// switch each gate on.
// with names the gates whose state a gate reads by design, switched on
// in its baseline too: quality-gate stands down while the feedback loop
// tracks the session (it is the loop's safety net), precompact-context
// and session-reminder give the loop's and the requirements' state back.
// The comparison shows that merging changes no verdict, not that a gate
// ignores the others' state.
var seedGates = []struct {
	source string // decisions.json source
	config string // under strategies: (indented), or a top-level section
	with   []string
}{
	{"strategy:agent-first", "  agent-first: {}\n", nil},
	{"strategy:quality-gate", "  quality-gate: {}\n", []string{"feedback"}},
	{"strategy:iteration-limit", "  iteration-limit: {}\n", nil},
	{"strategy:output-location", "  output-location: {}\n", nil},
	{"strategy:session-reminder", "  session-reminder:\n    text: Run the tests before you stop.\n", []string{"feedback", "requirements"}},
	{"strategy:notify", "  notify:\n    bell: true\n", nil},
	{"strategy:precompact-context", "  precompact-context: {}\n", []string{"feedback", "requirements"}},
	{"strategy:token-budget", "  token-budget:\n    measure: total\n    warn_threshold: 100\n", nil},
	{"strategy:clean-state", "  clean-state: {}\n", nil},
	{"feedback", "", nil},
	{"requirements", "", nil},
}

// seedConfig is config.yaml with the gates of sources on.
func seedConfig(sources map[string]bool) (cfg string, requirements bool) {
	var b strings.Builder
	b.WriteString("strategies:\n")
	for _, g := range seedGates {
		if sources[g.source] && strings.HasPrefix(g.source, "strategy:") {
			b.WriteString(g.config)
		}
	}
	if sources["feedback"] {
		b.WriteString("feedback:\n  enabled: true\n")
	}
	return b.String(), sources["requirements"]
}

// seedEvents is a session that gives every gate something to decide.
func seedEvents(root string) []struct {
	name   string
	fields map[string]any
} {
	main := filepath.Join(root, "main.go")
	return []struct {
		name   string
		fields map[string]any
	}{
		{hookio.SessionStart, map[string]any{"source": "startup"}},
		{hookio.UserPromptSubmit, map[string]any{"prompt": "fix the greeting"}},
		{hookio.PreToolUse, map[string]any{"tool_name": "Edit", "tool_use_id": "e1", "tool_input": map[string]any{"file_path": main}}},
		{hookio.PostToolUse, map[string]any{"tool_name": "Edit", "tool_use_id": "e1", "tool_input": map[string]any{"file_path": main}, "tool_response": map[string]any{}}},
		{hookio.PreToolUse, map[string]any{"tool_name": "Bash", "tool_use_id": "b1", "tool_input": map[string]any{"command": "go test ./..."}}},
		{hookio.Stop, map[string]any{}},
		{hookio.Stop, map[string]any{"stop_hook_active": true}},
		{hookio.Notification, map[string]any{"message": "Claude needs your permission", "notification_type": "permission_prompt"}},
		{hookio.PreCompact, map[string]any{"trigger": "auto"}},
		{hookio.SessionStart, map[string]any{"source": "compact"}},
		{hookio.Stop, map[string]any{"stop_hook_active": true}},
		{hookio.Stop, map[string]any{"stop_hook_active": true}},
		{hookio.Stop, map[string]any{"stop_hook_active": true}},
	}
}

// seedRun plays seedEvents in a new project with the gates of sources on.
// It returns each gate's decisions per event ("#i source decision reason"),
// and the answers.
func seedRun(t *testing.T, sources map[string]bool) (map[string][]string, []hookio.Answer) {
	t.Helper()
	cfg, req := seedConfig(sources)
	p := newGateProject(t, cfg)
	p.env["SPCSTR_REPLAY"] = "1" // notify: say what it would do, ring nothing
	p.write("main.go", "package main\n\nfunc main() { println(\"helo\") }\n")
	if err := os.MkdirAll(filepath.Join(p.root, ".claude/agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	p.write(".claude/agents/backend-developer.md", "---\nname: backend-developer\ndescription: Go.\n---\nYou develop.\n")
	if req {
		p.write(".claude/requirements.yaml", "requirements:\n  commit_plan:\n    enabled: true\n    scope: session\n    message: Plan first.\n")
	}
	tr := filepath.Join(p.root, "t.jsonl")
	p.write("t.jsonl", `{"type":"assistant","message":{"id":"m1","model":"x","usage":{"input_tokens":700,"output_tokens":5}}}`+"\n")
	got := map[string][]string{}
	var answers []hookio.Answer
	seen := 0
	for i, e := range seedEvents(p.root) {
		if e.name == hookio.PostToolUse {
			p.write("main.go", "package main\n\nfunc main() { println(\"hello\") }\n")
		}
		e.fields["transcript_path"] = tr
		answers = append(answers, p.hook(e.name, e.fields))
		recs := p.decisions()
		for _, r := range recs[seen:] {
			got[r.Source] = append(got[r.Source], fmt.Sprintf("#%d %s %s %s dry=%t %s", i, r.Hook, r.Decision, r.Reason, r.DryRun, r.Enforcement))
		}
		seen = len(recs)
	}
	return got, answers
}

func TestSeedGatesTogether(t *testing.T) {
	if testing.Short() {
		t.Skip("plays one session per gate")
	}
	all := map[string]bool{}
	for _, g := range seedGates {
		all[g.source] = true
	}
	together, answers := seedRun(t, all)
	spoke := 0
	for _, g := range seedGates {
		on := map[string]bool{g.source: true}
		for _, w := range g.with {
			on[w] = true
		}
		alone, _ := seedRun(t, on)
		if a, b := strings.Join(alone[g.source], "\n"), strings.Join(together[g.source], "\n"); a != b {
			t.Errorf("%s decides differently with the others on:\nalone:\n%s\ntogether:\n%s", g.source, a, b)
		}
		if len(alone[g.source]) > 0 {
			spoke++
		} else {
			t.Logf("%s decided nothing in this session", g.source)
		}
	}
	if spoke < 8 {
		t.Errorf("only %d of %d gates decided anything: the session does not exercise them", spoke, len(seedGates))
	}
	for src, recs := range together {
		for _, r := range recs {
			if strings.Contains(r, "dry=true") || strings.Contains(r, "failed-") {
				t.Errorf("%s: %s (every gate must be enforced, none failing)", src, r)
			}
		}
	}
	// quality-gate enforces only while the loop is off: compare it alone
	// with every gate but the loop.
	delete(all, "feedback")
	noLoop, _ := seedRun(t, all)
	qgAlone, _ := seedRun(t, map[string]bool{"strategy:quality-gate": true})
	if a, b := strings.Join(qgAlone["strategy:quality-gate"], "\n"), strings.Join(noLoop["strategy:quality-gate"], "\n"); a != b || !strings.Contains(a, "#5 Stop block") {
		t.Errorf("quality-gate without the loop:\nalone:\n%s\ntogether:\n%s", a, b)
	}
	// The first Stop: several gates block, one answer carries each reason.
	stop := answers[5]
	if stop.Decision != hookio.DecisionBlock {
		t.Fatalf("first Stop = %+v", stop)
	}
	blockers := 0
	for src, recs := range together {
		for _, r := range recs {
			if strings.HasPrefix(r, "#5 Stop block ") {
				blockers++
				if !strings.Contains(stop.Reason, "["+src+"] ") {
					t.Errorf("the Stop's reason lacks %s:\n%s", src, stop.Reason)
				}
			}
		}
	}
	if blockers < 2 {
		t.Fatalf("only %d gate(s) blocked the first Stop: %+v", blockers, together)
	}
}
