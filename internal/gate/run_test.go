package gate

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

// fake is a gate with canned verdicts, error or panic.
type fake struct {
	name     string
	verdicts []Verdict
	err      error
	panics   bool
	closed   bool
}

func (f fake) Name() string     { return f.name }
func (f fake) FailClosed() bool { return f.closed }
func (f fake) Evaluate(context.Context, *Input) ([]Verdict, error) {
	if f.panics {
		panic("boom")
	}
	return f.verdicts, f.err
}

var now = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

func input(event string, env map[string]string) *Input {
	return &Input{Event: &hookio.Event{SessionID: "s1"}, Name: event, Now: now,
		Session: &state.Session{SessionID: "s1"},
		Getenv:  func(k string) string { return env[k] }}
}

func TestRun(t *testing.T) {
	fail := errors.New("broken")
	tests := []struct {
		name      string
		event     string
		gates     []Gate
		policy    Policy
		env       map[string]string
		answer    string // encoded
		records   string // source:decision[:dry] ...
		failures  int
		errorsLen int
	}{
		{"no gates", hookio.Stop, nil, Policy{}, nil, "", "", 0, 0},
		{"allow is recorded, not answered", hookio.PreToolUse,
			[]Gate{fake{name: "a", verdicts: []Verdict{{Decision: Allow}}}}, Policy{}, nil,
			"", "a:allow", 0, 0},
		{"deny answers", hookio.PreToolUse,
			[]Gate{fake{name: "a", verdicts: []Verdict{{Decision: Deny, Message: "no"}}}}, Policy{}, nil,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, "a:deny", 0, 0},
		{"a verdict may name its strategy", hookio.PreToolUse,
			[]Gate{fake{name: "strategies", verdicts: []Verdict{{Source: "strategy:x", Decision: Allow}}}}, Policy{}, nil,
			"", "strategy:x:allow", 0, 0},
		{"error fails open, never silently", hookio.PreToolUse,
			[]Gate{fake{name: "a", err: fail}}, Policy{}, nil,
			`{"systemMessage":"spcstr: a could not decide (broken); its fail_mode is open, so this is allowed (run ` + "`spcstr doctor`" + `)."}`, "a:allow", 1, 1},
		{"fail-open keeps the verdicts returned with the error", hookio.PreToolUse,
			[]Gate{fake{name: "a", err: fail, verdicts: []Verdict{{Context: "ctx"}}}}, Policy{}, nil,
			`{"systemMessage":"spcstr: a could not decide (broken); its fail_mode is open, so this is allowed (run ` + "`spcstr doctor`" + `).","hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"ctx"}}`, "a:allow", 1, 1},
		{"panic fails open", hookio.Stop,
			[]Gate{fake{name: "a", panics: true}}, Policy{}, nil,
			`{"systemMessage":"spcstr: a could not decide (panic: boom); its fail_mode is open, so this is allowed (run ` + "`spcstr doctor`" + `)."}`, "a:allow", 1, 1},
		{"panic fails closed", hookio.Stop,
			[]Gate{fake{name: "a", panics: true, closed: true}}, Policy{}, nil,
			`{"decision":"block","reason":"spcstr: a could not decide (panic: boom) and its fail_mode is closed."}`, "a:block", 1, 1},
		{"a side write's failure keeps the verdict", hookio.PreToolUse,
			[]Gate{fake{name: "a", closed: true, err: SideWrite(fail), verdicts: []Verdict{{Decision: Deny, Message: "no"}}}}, Policy{}, nil,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, "a:deny", 1, 1},
		{"a side write's failure does not deny an allow", hookio.PreToolUse,
			[]Gate{fake{name: "a", closed: true, err: SideWrite(fail), verdicts: []Verdict{{Decision: Allow}}}}, Policy{}, nil,
			"", "a:allow", 1, 1},
		{"fail_mode closed denies PreToolUse", hookio.PreToolUse,
			[]Gate{fake{name: "a", err: fail, closed: true}}, Policy{}, nil,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"spcstr: a could not decide (broken) and its fail_mode is closed."}}`,
			"a:deny", 1, 1},
		{"fail_mode closed blocks Stop", hookio.Stop,
			[]Gate{fake{name: "a", err: fail, closed: true}}, Policy{}, nil,
			`{"decision":"block","reason":"spcstr: a could not decide (broken) and its fail_mode is closed."}`,
			"a:block", 1, 1},
		{"fail_mode closed cannot block SessionStart", hookio.SessionStart,
			[]Gate{fake{name: "a", err: fail, closed: true}}, Policy{}, nil,
			`{"systemMessage":"spcstr: a could not decide (broken); its fail_mode is closed, but SessionStart cannot be blocked (run ` + "`spcstr doctor`" + `)."}`, "a:allow", 1, 1},
		{"config dry-run records, does not enforce", hookio.PreToolUse,
			[]Gate{fake{name: "a", verdicts: []Verdict{{Decision: Deny, Message: "no", SystemMessage: "warn"}}}}, Policy{DryRun: true}, nil,
			`{"systemMessage":"spcstr dry run: a would deny PreToolUse; not enforced"}`, "a:deny:dry", 0, 0},
		{"environment dry-run", hookio.Stop,
			[]Gate{fake{name: "a", verdicts: []Verdict{{Decision: Block, Message: "no"}}}}, Policy{}, map[string]string{"SPCSTR_DRY_RUN": "1"},
			`{"systemMessage":"spcstr dry run: a would block this stop; not enforced"}`, "a:block:dry", 0, 0},
		{"a verdict's own dry-run", hookio.Stop,
			[]Gate{fake{name: "a", verdicts: []Verdict{{Decision: Block, Message: "no", DryRun: true}}},
				fake{name: "b", verdicts: []Verdict{{Decision: Block, Message: "yes"}}}}, Policy{}, nil,
			`{"systemMessage":"spcstr dry run: a would block this stop; not enforced","decision":"block","reason":"yes"}`, "a:block:dry b:block", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := input(tt.event, tt.env)
			res := Run(context.Background(), tt.gates, in, tt.policy)
			if got := strings.TrimSpace(string(res.Answer.Encode())); got != tt.answer {
				t.Errorf("answer %s\nwant   %s", got, tt.answer)
			}
			var recs []string
			for _, r := range res.Records {
				s := r.Source + ":" + r.Decision
				if r.DryRun {
					s += ":dry"
				}
				recs = append(recs, s)
				if r.SessionID != "s1" || r.Hook != tt.event || !r.Timestamp.Equal(now) || len(r.RequestID) != 16 || r.RequestID != res.Records[0].RequestID {
					t.Errorf("record not stamped: %+v", r)
				}
			}
			if got := strings.Join(recs, " "); got != tt.records {
				t.Errorf("records %q, want %q", got, tt.records)
			}
			if len(res.Failures) != tt.failures || len(in.Session.Errors) != tt.errorsLen {
				t.Errorf("failures %v, session errors %v", res.Failures, in.Session.Errors)
			}
		})
	}
}

func TestRunEscalatesStops(t *testing.T) {
	blocker := fake{name: "req", verdicts: []Verdict{{Decision: Block, Reason: "unmet", Message: "run the tests"}}}
	s := &state.Session{SessionID: "s1"}
	stop := func() Result {
		in := input(hookio.Stop, nil)
		in.Session = s
		return Run(context.Background(), []Gate{blocker}, in, Policy{})
	}
	for i := 1; i <= DefaultStopBlockLimit; i++ {
		if res := stop(); res.Answer.Decision != hookio.DecisionBlock {
			t.Fatalf("stop %d: not blocked: %+v", i, res.Answer)
		}
	}
	res := stop()
	if res.Answer.Decision != "" || !strings.Contains(res.Answer.SystemMessage, "Still unmet:\nrun the tests") {
		t.Fatalf("stop %d: not escalated: %+v", DefaultStopBlockLimit+1, res.Answer)
	}
	if r := res.Records[0]; r.Decision != Escalated || r.Reason != "escalated:unmet" || r.Enforcement != GaveWay ||
		!strings.Contains(r.SystemMessage, "req gave way") {
		t.Fatalf("escalation record: %+v", r)
	}
	// Progress (a tool call) resets the count.
	s.ToolsUsed = map[string]int{"Bash": 1}
	if res := stop(); res.Answer.Decision != hookio.DecisionBlock {
		t.Fatalf("after progress: not blocked: %+v", res.Answer)
	}
	// A Stop the gate allows forgets the count.
	allow := fake{name: "req", verdicts: []Verdict{{Decision: Allow}}}
	in := input(hookio.Stop, nil)
	in.Session = s
	Run(context.Background(), []Gate{allow}, in, Policy{})
	if _, ok := s.Gates["req/Stop"]; ok {
		t.Fatalf("count kept after an allowed stop: %+v", s.Gates)
	}
}

// The user's next prompt starts a new task: its first Stop is blocked
// again, not let through because the last task's Stops were blocked to the
// limit with no tool call since.
func TestUserPromptResetsStopCount(t *testing.T) {
	blocker := fake{name: "req", verdicts: []Verdict{{Decision: Block, Reason: "unmet", Message: "run the tests"}}}
	s := &state.Session{SessionID: "s1"}
	run := func(event string) Result {
		in := input(event, nil)
		in.Session = s
		return Run(context.Background(), []Gate{blocker}, in, Policy{})
	}
	for i := 1; i <= DefaultStopBlockLimit; i++ {
		run(hookio.Stop)
	}
	if res := run(hookio.Stop); res.Answer.Decision != "" || res.Records[0].Decision != Escalated {
		t.Fatalf("the last task's stop did not give way: %+v", res.Answer)
	}
	// Another event (no tool call either) keeps the count.
	run(hookio.Notification)
	if res := run(hookio.Stop); res.Records[0].Decision != Escalated {
		t.Fatalf("a notification reset the count: %+v", res.Records)
	}
	run(hookio.UserPromptSubmit)
	if len(s.Gates) != 0 {
		t.Fatalf("counts kept after a prompt: %+v", s.Gates)
	}
	for i := 1; i <= DefaultStopBlockLimit; i++ {
		if res := run(hookio.Stop); res.Answer.Decision != hookio.DecisionBlock || strings.Contains(res.Answer.SystemMessage, "gave way") {
			t.Fatalf("new task's stop %d: %+v", i, res.Answer)
		}
	}
}

// limited is a gate with its own stop_block_limit.
type limited struct {
	fake
	limit int
}

func (l limited) StopBlockLimit() int { return l.limit }

func TestStopBlockLimit(t *testing.T) {
	blocker := fake{name: "g", verdicts: []Verdict{{Decision: Block, Reason: "unmet", Message: "m"}}}
	tests := []struct {
		name   string
		g      Gate
		policy Policy
		env    map[string]string
		want   int // Stops blocked before one gives way
	}{
		{"default", blocker, Policy{}, nil, DefaultStopBlockLimit},
		{"global", blocker, Policy{StopBlockLimit: 5}, nil, 5},
		{"the gate's own wins", limited{blocker, 1}, Policy{StopBlockLimit: 5}, nil, 1},
		{"never above Claude Code's cap", blocker, Policy{StopBlockLimit: 12}, map[string]string{"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "8"}, 8},
		{"a lowered cap lowers the default", blocker, Policy{}, map[string]string{"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "2"}, 2},
		{"Claude Code's default cap", blocker, Policy{StopBlockLimit: 12}, nil, ClaudeCodeStopBlockCap},
		{"a raised cap lets a high limit work", blocker, Policy{StopBlockLimit: 12}, map[string]string{"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "20"}, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &state.Session{SessionID: "s1"}
			blocked := 0
			for i := 0; i < 30; i++ {
				in := input(hookio.Stop, tt.env)
				in.Session = s
				res := Run(context.Background(), []Gate{tt.g}, in, tt.policy)
				if res.Answer.Decision != hookio.DecisionBlock {
					if !strings.Contains(res.Answer.SystemMessage, "g gave way") || res.Records[0].Decision != Escalated {
						t.Fatalf("give-way answer %+v, records %+v", res.Answer, res.Records)
					}
					break
				}
				blocked++
			}
			if blocked != tt.want {
				t.Fatalf("blocked %d Stops, want %d", blocked, tt.want)
			}
		})
	}
}

// follower counts its calls and says so.
type follower struct {
	fake
	calls *int
}

func (f follower) Follow(context.Context, *Input) ([]Verdict, error) {
	*f.calls++
	return []Verdict{{Decision: Block, SystemMessage: "after"}}, nil
}

// A follower speaks only when no gate holds the event: not on an enforced
// block, but on an allow, a dry-run block and a block that gave way; the
// decision it returns is dropped.
func TestFollowersSpeakOnlyWhenTheEventGoesThrough(t *testing.T) {
	block := fake{name: "b", verdicts: []Verdict{{Decision: Block, Message: "no"}}}
	for _, tt := range []struct {
		name   string
		gates  func(f Gate) []Gate
		policy Policy
		speaks bool
	}{
		{"nothing else", func(f Gate) []Gate { return []Gate{f} }, Policy{}, true},
		{"another gate blocks", func(f Gate) []Gate { return []Gate{f, block} }, Policy{}, false},
		{"the block is a dry run", func(f Gate) []Gate { return []Gate{f, block} }, Policy{DryRun: true}, true},
		{"the block gave way", func(f Gate) []Gate { return []Gate{f, block} }, Policy{StopBlockLimit: 1}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			f := follower{fake: fake{name: "f"}, calls: &calls}
			in := input(hookio.Stop, nil)
			if tt.name == "the block gave way" {
				in.Session.Gates = map[string]state.GateState{"b/Stop": {StopBlocks: 1}}
			}
			res := Run(context.Background(), tt.gates(f), in, tt.policy)
			if (calls == 1) != tt.speaks || strings.Contains(res.Answer.SystemMessage, "after") != tt.speaks {
				t.Fatalf("calls %d, answer %+v", calls, res.Answer)
			}
			if tt.speaks && res.Answer.Decision == hookio.DecisionBlock {
				t.Errorf("a follower's decision counted: %+v", res.Answer)
			}
		})
	}
}
