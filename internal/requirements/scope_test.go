package requirements

import (
	"encoding/json"
	"reflect"
	"testing"
)

// op is one step of a scope scenario.
type op struct {
	do      string // trigger, satisfy, satisfy-branch, clear, clear-branch, clear-single-use, clear-session
	session string
	// want after the step, for session "check" (default: the step's session)
	check     string
	satisfied bool
	triggered bool
}

// The scope transitions of seeds 000 (§3, §8, §9, §10) and 001 (§3).
func TestScopeTransitions(t *testing.T) {
	cases := []struct {
		name  string
		scope string
		steps []op
	}{
		{"session: once per session, re-gated in every new session (docs/requirements.md)", ScopeSession, []op{
			{do: "check", session: "A", satisfied: false},
			{do: "trigger", session: "A", triggered: true},
			{do: "satisfy", session: "A", satisfied: true, triggered: true},
			// Session A ends; its data stays. Session B starts on the same branch.
			{do: "check", session: "B", satisfied: false, triggered: false},
			{do: "check", session: "A", satisfied: true, triggered: true},
			{do: "satisfy", session: "B", satisfied: true},
			{do: "check", session: "A", satisfied: true, triggered: true},
		}},
		{"single_use: once per action (docs/requirements.md)", ScopeSingleUse, []op{
			{do: "trigger", session: "A", triggered: true},
			{do: "satisfy", session: "A", satisfied: true, triggered: true},
			{do: "clear-single-use", session: "A", satisfied: false, triggered: false},
			{do: "trigger", session: "A", satisfied: false, triggered: true},
			{do: "check", session: "B", satisfied: false, triggered: false},
		}},
		{"single_use clearing touches only this session", ScopeSingleUse, []op{
			{do: "satisfy", session: "A", satisfied: true},
			{do: "satisfy", session: "B", satisfied: true},
			{do: "clear-single-use", session: "A", satisfied: false},
			{do: "check", session: "B", satisfied: true},
		}},
		{"branch: once per branch (docs/requirements.md)", ScopeBranch, []op{
			{do: "trigger", session: "A", triggered: true},
			{do: "satisfy", session: "A", satisfied: true, triggered: true},
			{do: "check", session: "B", satisfied: true, triggered: true},
			{do: "clear", session: "B", satisfied: false, triggered: true},
			{do: "check", session: "A", satisfied: false, triggered: true},
		}},
		{"permanent: never resets unless cleared (docs/requirements.md)", ScopePermanent, []op{
			{do: "satisfy", session: "A", satisfied: true},
			{do: "check", session: "B", satisfied: true},
			{do: "clear-single-use", session: "B", satisfied: true},
			{do: "clear", session: "B", satisfied: false},
		}},
		{"branch-level override of a session requirement (docs/requirements.md)", ScopeSession, []op{
			{do: "satisfy-branch", session: "A", satisfied: true},
			{do: "check", session: "B", satisfied: true},
			{do: "trigger", session: "B", satisfied: true, triggered: true},
			// Clearing B's own satisfaction leaves the override in force...
			{do: "clear", session: "B", satisfied: true, triggered: true},
			// ...clearing with --branch removes it.
			{do: "clear-branch", session: "B", satisfied: false, triggered: true},
			{do: "check", session: "A", satisfied: false},
		}},
		{"branch-level override of a single_use requirement", ScopeSingleUse, []op{
			{do: "satisfy-branch", session: "A", satisfied: true},
			{do: "trigger", session: "A", satisfied: true, triggered: true},
			{do: "clear-single-use", session: "A", satisfied: true, triggered: false},
		}},
		{"clear keeps triggered so Stop still asks (docs/requirements.md)", ScopeSession, []op{
			{do: "satisfy", session: "A", satisfied: true},
			{do: "trigger", session: "A", satisfied: true, triggered: true},
			{do: "clear", session: "A", satisfied: false, triggered: true},
		}},
		{"session_end clear_session_state removes the requirement, as the framework's clear() does", ScopeSession, []op{
			{do: "satisfy", session: "A", satisfied: true},
			{do: "satisfy", session: "B", satisfied: true},
			{do: "satisfy-branch", session: "B", satisfied: true},
			{do: "trigger", session: "A", satisfied: true, triggered: true},
			{do: "remove", session: "A", satisfied: false},
			{do: "check", session: "B", satisfied: false},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &File{}
			const name = "req"
			for i, s := range c.steps {
				now := float64(1000 + i)
				switch s.do {
				case "check":
				case "trigger":
					f.MarkTriggered(name, c.scope, s.session, now)
				case "satisfy":
					f.Satisfy(name, c.scope, s.session, false, BySkill, map[string]any{"skill": "x"}, now)
				case "satisfy-branch":
					f.Satisfy(name, c.scope, s.session, true, ByCLI, nil, now)
				case "clear":
					f.Clear(name, c.scope, s.session, false)
				case "clear-branch":
					f.Clear(name, c.scope, s.session, true)
				case "clear-single-use":
					if c.scope == ScopeSingleUse {
						f.ClearSingleUse(name, s.session)
					}
				case "remove":
					f.Remove(name)
				default:
					t.Fatalf("unknown step %q", s.do)
				}
				key := s.session
				if s.check != "" {
					key = s.check
				}
				if got := f.IsSatisfied(name, c.scope, key, now); got != s.satisfied {
					t.Errorf("step %d (%s %s): satisfied = %v, want %v", i, s.do, s.session, got, s.satisfied)
				}
				if got := f.IsTriggered(name, c.scope, key); got != s.triggered {
					t.Errorf("step %d (%s %s): triggered = %v, want %v", i, s.do, s.session, got, s.triggered)
				}
			}
		})
	}
}

// The state file at each step of a single_use requirement.
func TestSingleUseStateShape(t *testing.T) {
	f := &File{}
	f.MarkTriggered("pre_commit_review", ScopeSingleUse, "abc123", 1)
	f.Satisfy("pre_commit_review", ScopeSingleUse, "abc123", false, BySkill, nil, 2)
	assertJSON(t, f.Requirements["pre_commit_review"], `{"scope":"single_use","sessions":{"abc123":
		{"satisfied":true,"satisfied_at":2,"satisfied_by":"skill","expires_at":null,"triggered":true,"triggered_at":1}}}`)
	f.ClearSingleUse("pre_commit_review", "abc123")
	assertJSON(t, f.Requirements["pre_commit_review"], `{"scope":"single_use","sessions":{}}`)
	f.MarkTriggered("pre_commit_review", ScopeSingleUse, "abc123", 3)
	assertJSON(t, f.Requirements["pre_commit_review"], `{"scope":"single_use","sessions":{"abc123":{"triggered":true,"triggered_at":3}}}`)
}

// Branch and permanent scope keep their state at the requirement's root
// (docs/requirements.md).
func TestBranchStateShape(t *testing.T) {
	f := &File{}
	f.Satisfy("security_reviewed", ScopePermanent, "abc123", false, ByCLI, nil, 7)
	assertJSON(t, f.Requirements["security_reviewed"], `{"scope":"permanent","satisfied":true,"satisfied_at":7,"satisfied_by":"cli","expires_at":null}`)
}

func TestExpiry(t *testing.T) {
	f := &File{}
	f.Satisfy("r", ScopeSession, "A", false, ByCLI, nil, 100)
	exp := float64(200)
	f.Requirements["r"].Sessions["A"].ExpiresAt = &exp
	if !f.IsSatisfied("r", ScopeSession, "A", 200) || f.IsSatisfied("r", ScopeSession, "A", 201) {
		t.Error("session expiry not honoured")
	}
	f.Satisfy("p", ScopePermanent, "A", false, ByCLI, nil, 100)
	f.Requirements["p"].ExpiresAt = &exp
	if !f.IsSatisfied("p", ScopePermanent, "A", 1e9) {
		t.Error("permanent requirement expired")
	}
}

func TestMarkTriggeredOnce(t *testing.T) {
	f := &File{}
	if !f.MarkTriggered("r", ScopeSession, "A", 1) {
		t.Error("first MarkTriggered reported no change")
	}
	if f.MarkTriggered("r", ScopeSession, "A", 2) {
		t.Error("second MarkTriggered reported a change (would rewrite the file on every call)")
	}
	if f.Requirements["r"].Sessions["A"].TriggeredAt != 1 {
		t.Error("triggered_at moved")
	}
}

func assertJSON(t *testing.T, v any, want string) {
	t.Helper()
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &b); err != nil {
		t.Fatalf("bad want: %v", err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
