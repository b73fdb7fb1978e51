package strategy

import (
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
)

func TestAgentFirst(t *testing.T) {
	p := newProject(t, false)
	p.write(".claude/agents/backend-developer.md", "---\nname: backend-developer\n---\n")
	p.write("agents/frontend-developer.md", "x")
	tests := []struct {
		name, yaml, tool, file, agentID string
		want                            string // "" (no verdict) or the deny reason
	}{
		{"main agent edits backend code", "strategies:\n  agent-first: {}\n", "Edit", "internal/x.go", "", "delegate:backend-developer"},
		{"absolute path inside the project", "strategies:\n  agent-first: {}\n", "Write", p.layout.Root + "/cmd/main.go", "", "delegate:backend-developer"},
		{"MultiEdit too", "strategies:\n  agent-first: {}\n", "MultiEdit", "a.go", "", "delegate:backend-developer"},
		{"the developer agent edits", "strategies:\n  agent-first: {}\n", "Edit", "internal/x.go", "agent-1", ""},
		{"no developer agent for the domain", "strategies:\n  agent-first: {}\n", "Edit", "web/App.tsx", "", ""},
		{"unrouted file", "strategies:\n  agent-first: {}\n", "Edit", "README.md", "", ""},
		{"outside the project", "strategies:\n  agent-first: {}\n", "Edit", "/etc/x.go", "", ""},
		{"agents_dir", "strategies:\n  agent-first:\n    agents_dir: agents\n", "Edit", "web/App.tsx", "", "delegate:frontend-developer"},
		{"agents_dir moves backend's away", "strategies:\n  agent-first:\n    agents_dir: agents\n", "Edit", "x.go", "", ""},
		{"Read is not a hook", "strategies:\n  agent-first: {}\n", "Read", "x.go", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gs := p.gates(tt.yaml)
			f := map[string]any{"tool_name": tt.tool, "tool_input": map[string]any{"file_path": tt.file}}
			if tt.agentID != "" {
				f["agent_id"] = tt.agentID
			}
			vs := run(t, gs, p.input(hookio.PreToolUse, f))
			got := ""
			if len(vs) == 1 && vs[0].Decision == gate.Deny {
				got = vs[0].Reason
				agent := strings.TrimPrefix(got, "delegate:")
				if !strings.Contains(vs[0].Message, "spawn the "+agent+" agent") {
					t.Errorf("message does not name the agent: %q", vs[0].Message)
				}
			} else if len(vs) != 0 {
				t.Fatalf("verdicts = %+v", vs)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	// NotebookEdit names its file notebook_path.
	gs := p.gates("strategies:\n  agent-first: {}\n")
	p.write(".claude/agents/python-developer.md", "x")
	vs := run(t, gs, p.input(hookio.PreToolUse, map[string]any{"tool_name": "NotebookEdit", "tool_input": map[string]any{"notebook_path": "nb/x.py"}}))
	if len(vs) != 1 || vs[0].Decision != gate.Deny {
		t.Fatalf("NotebookEdit = %+v", vs)
	}
}

func TestNewStrategyOptions(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"agent-first:\n  agents_dir: ../elsewhere\n", "agents_dir"},
		{"agent-first:\n  agent_dir: x\n", "unknown field"},
		{"iteration-limit:\n  max_iterations: -1\n", "max_iterations"},
		{"iteration-limit:\n  limits_file: /etc/limits.yaml\n", "limits_file"},
		{"escalation-advisor:\n  commands: [\"\"]\n", "empty command"},
		{"escalation-advisor:\n  timeout: soon\n", "duration"},
		{"escalation-advisor:\n  timeout: -3\n", "positive"},
		{"session-reminder:\n  text: a\n  file: b\n", "set one"},
		{"session-reminder:\n  file: ../b\n", "inside the project"},
		{"notify: {}\n", "bell"},
		{"notify:\n  bell: true\n  hooks: [SessionStart]\n", "not a hook"},
		{"precompact-context:\n  manifests: [\"/abs/*.yaml\"]\n", "inside the project"},
		{"quality-gate:\n  fail_mode: shut\n", "fail_mode"},
		{"output-location:\n  compliance_skill: persisting-agent-outputs\n  hooks: [SubagentStop, \"PostToolUse:Agent\"]\n", ""},
		{"output-location:\n  hooks: [\"PostToolUse:Agent\"]\n", "not a hook"},
	}
	for _, tt := range tests {
		ps := Validate(cfgFrom(t, "strategies:\n"+indent(tt.yaml)))
		if tt.want == "" {
			if len(ps) != 0 {
				t.Errorf("%q: %v", tt.yaml, ps)
			}
			continue
		}
		if len(ps) != 1 || ps[0].Kind != ProblemConfig || !strings.Contains(ps[0].Message, tt.want) {
			t.Errorf("%q: problems %v, want one mentioning %q", tt.yaml, ps, tt.want)
		}
	}
	// Every new strategy loads with its documented minimal options.
	ok := "strategies:\n  agent-first: {}\n  session-reminder:\n    text: hi\n  notify:\n    bell: true\n  precompact-context: {}\n  escalation-advisor:\n    commands: [\"cat\"]\n    timeout: 90s\n  quality-gate: {}\n"
	if ps := Validate(cfgFrom(t, ok)); len(ps) != 0 {
		t.Fatalf("valid set: %v", ps)
	}
}

func indent(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i := range lines {
		lines[i] = "  " + lines[i]
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestPlain(t *testing.T) {
	for in, want := range map[string]string{
		"ok\x1b[31mred\x1b[0m":          "okred",
		"title\x1b]0;evil\x07 after":    "title after",
		"osc\x1b]8;;http://x\x1b\\link": "osclink",
		"tab\tand\nline\rbell\a":        "tab\tand\nlinebell",
		"\x1bcreset":                    "reset",
		"ünïcode \u0085":                "ünïcode ",
	} {
		if got := plain(in); got != want {
			t.Errorf("plain(%q) = %q, want %q", in, got, want)
		}
	}
}
