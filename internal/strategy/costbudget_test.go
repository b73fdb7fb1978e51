package strategy

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

// usd sets a session's usage to cost about d dollars (claude-opus-5-5's
// output at $20 per million tokens).
func costUsage(d float64) state.Tokens {
	out := int64(d * 1e6 / 20)
	return state.Tokens{Output: out, ByModel: map[string]state.ModelUsage{"claude-opus-5-5": {Output: out}}}
}

func TestCostBudget(t *testing.T) {
	type ev struct {
		name, tool string
		usd        float64
		lifted     bool
		stopActive bool
	}
	tests := []struct {
		name   string
		yaml   string
		events []ev
		want   []string // per event: "" | "warn" | "deny" | "block"
	}{
		{name: "session warning once, then a spawn denied past the cap",
			yaml: "strategies:\n  cost-budget:\n    session_warn: 1\n    session_cap: 2\n",
			events: []ev{{name: "PostToolUse", tool: "Read", usd: 0.5}, {name: "PostToolUse", tool: "Read", usd: 1.2},
				{name: "PostToolUse", tool: "Read", usd: 1.5}, {name: "PreToolUse", tool: "Agent", usd: 1.9},
				{name: "PreToolUse", tool: "Agent", usd: 2.1}, {name: "PreToolUse", tool: "Bash", usd: 3}},
			want: []string{"", "warn", "", "", "deny", ""}},
		{name: "lifted: spawns go on",
			yaml:   "strategies:\n  cost-budget:\n    session_cap: 2\n",
			events: []ev{{name: "PreToolUse", tool: "Task", usd: 5, lifted: true}},
			want:   []string{""}},
		{name: "block-stop once, never twice in a row",
			yaml:   "strategies:\n  cost-budget:\n    session_cap: 2\n    on_cap: block-stop\n",
			events: []ev{{name: "PreToolUse", tool: "Agent", usd: 5}, {name: "Stop", usd: 5}, {name: "Stop", usd: 5, stopActive: true}},
			want:   []string{"", "block", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, false)
			gs := p.gates(tt.yaml)
			for i, e := range tt.events {
				p.sess.Tokens = costUsage(e.usd)
				p.sess.Notes = nil
				if e.lifted {
					p.sess.Note(CostLiftNote)
				}
				if i > 0 && tt.want[i-1] == "warn" {
					p.sess.Note("cost-budget:session-warn")
				}
				f := map[string]any{}
				if e.tool != "" {
					f["tool_name"] = e.tool
				}
				if e.stopActive {
					f["stop_hook_active"] = true
				}
				got := ""
				for _, v := range run(t, gs, p.input(e.name, f)) {
					switch {
					case v.Decision == gate.Deny:
						got = "deny"
						if !strings.Contains(v.Message, "spcstr cost lift") || !strings.Contains(v.SystemMessage, "$2.00") {
							t.Errorf("deny without its way out: %+v", v)
						}
					case v.Decision == gate.Block:
						got = "block"
					case strings.Contains(v.SystemMessage, "cost-budget:"):
						got = "warn"
					}
				}
				if got != tt.want[i] {
					t.Errorf("event %d (%s %s $%v): got %q, want %q", i, e.name, e.tool, e.usd, got, tt.want[i])
				}
			}
		})
	}
}

// The day's total adds up the project's other sessions of today.
func TestCostBudgetDay(t *testing.T) {
	p := newProject(t, false)
	for _, id := range []string{"other1", "other2"} {
		if _, err := p.layout.Update(context.Background(), id, p.now, state.UpdateOptions{}, func(s *state.Session, _ bool) error {
			s.Tokens = costUsage(3)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		// Written "today" as the hook sees it, whatever the clock says.
		sp, _ := p.layout.StatePath(id)
		if err := os.Chtimes(sp, p.now, p.now); err != nil {
			t.Fatal(err)
		}
	}
	gs := p.gates("strategies:\n  cost-budget:\n    day_warn: 5\n    day_cap: 7\n")
	p.sess.Tokens = costUsage(0.5)
	vs := run(t, gs, p.input(hookio.UserPromptSubmit, nil))
	if len(vs) != 1 || !strings.Contains(vs[0].SystemMessage, "today's sessions") || !strings.Contains(vs[0].SystemMessage, "$6.50") {
		t.Fatalf("day warning = %+v", vs)
	}
	if vs := run(t, gs, p.input(hookio.PreToolUse, map[string]any{"tool_name": "Agent"})); len(vs) != 0 {
		t.Fatalf("under the day's cap: %+v", vs)
	}
	p.sess.Tokens = costUsage(1.5)
	if vs := run(t, gs, p.input(hookio.PreToolUse, map[string]any{"tool_name": "Agent"})); len(vs) != 1 || vs[0].Decision != gate.Deny {
		t.Fatalf("over the day's cap = %+v", vs)
	}
}

func TestCostBudgetOptions(t *testing.T) {
	for _, y := range []string{
		"strategies:\n  cost-budget: {}\n",
		"strategies:\n  cost-budget:\n    session_cap: -1\n",
		"strategies:\n  cost-budget:\n    session_cap: 1\n    on_cap: explode\n",
		"strategies:\n  cost-budget:\n    session_cpa: 1\n",
	} {
		if p := Validate(cfgFrom(t, y)); len(p) == 0 {
			t.Errorf("%q: no problem reported", y)
		}
	}
}

// A fork's inherited messages count in its parent's figure only: the
// day's total subtracts them from the fork's (its own or another's).
func TestCostBudgetDayFork(t *testing.T) {
	p := newProject(t, false)
	if _, err := p.layout.Update(context.Background(), "parent", p.now, state.UpdateOptions{}, func(s *state.Session, _ bool) error {
		s.Tokens = costUsage(3)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sp, _ := p.layout.StatePath("parent")
	if err := os.Chtimes(sp, p.now, p.now); err != nil {
		t.Fatal(err)
	}
	gs := p.gates("strategies:\n  cost-budget:\n    day_warn: 4\n")
	// The fork: $3 copied from the parent, $0.50 of its own.
	p.sess.Tokens = costUsage(3.5)
	p.sess.ForkedFrom, p.sess.Inherited = "parent", costUsage(3).ByModel
	if vs := run(t, gs, p.input(hookio.UserPromptSubmit, nil)); len(vs) != 0 {
		t.Fatalf("the day is $3.50, under the $4 warning; counting the copy twice says $6.50: %+v", vs)
	}
	p.sess.Tokens = costUsage(4)
	vs := run(t, gs, p.input(hookio.UserPromptSubmit, nil))
	if len(vs) != 1 || !strings.Contains(vs[0].SystemMessage, "$4.00") {
		t.Fatalf("day warning = %+v", vs)
	}
}
