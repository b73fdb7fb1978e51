package store

import (
	"os"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// TestLinkDecisions: a decision names the tool call its hook call logged at
// the same time, in the same session, whichever sorts first; the outcome
// is in words true for its hook.
func TestLinkDecisions(t *testing.T) {
	deny, _ := ParseEvent([]byte(`{"session_id":"s1","timestamp":"2026-01-15T12:00:00Z","source":"requirements:pre_commit_review","hook":"PreToolUse","decision":"deny","message":"Review before committing","enforcement":"enforced"}`))
	block, _ := ParseEvent([]byte(`{"session_id":"s1","timestamp":"2026-01-15T12:00:05Z","source":"strategy:ship","hook":"Stop","decision":"block","message":"tests fail","enforcement":"enforced"}`))
	call, _ := ParseEvent(entry(t, "s1", "PreToolUse", t0, `{"tool_name":"Bash","tool_input":{"command":"git commit -m x"}}`))
	other, _ := ParseEvent(entry(t, "s2", "PreToolUse", t0, `{"tool_name":"Read","tool_input":{"file_path":"/x"}}`))
	stop, _ := ParseEvent(entry(t, "s1", "Stop", t0.Add(5*time.Second), `{}`))
	evs := []Event{deny, other, call, block, stop}
	LinkDecisions(evs)
	if got, want := evs[0].Gate.Judged, "Bash git commit -m x"; got != want {
		t.Errorf("judged %q, want %q", got, want)
	}
	if got, want := evs[0].Detail, "deny PreToolUse: Review before committing · Bash git commit -m x"; got != want {
		t.Errorf("detail %q, want %q", got, want)
	}
	if evs[3].Gate.Judged != "" {
		t.Errorf("a Stop names no call, got %q", evs[3].Gate.Judged)
	}
	if got, want := evs[3].Gate.Outcome(), "Claude was kept working: the reason became its next instruction"; got != want {
		t.Errorf("Stop block outcome %q, want %q", got, want)
	}
	if got, want := evs[0].Gate.Outcome(), "the tool call was refused; Claude was given the reason"; got != want {
		t.Errorf("deny outcome %q, want %q", got, want)
	}
}

// TestGateTally: the row's counts take enforced denies and blocks, asks,
// failed-open gates and dry runs apart.
func TestGateTally(t *testing.T) {
	var g GateTally
	for _, raw := range []string{
		`{"session_id":"s1","timestamp":"2026-01-15T12:00:00Z","source":"a","hook":"PreToolUse","decision":"deny","enforcement":"enforced"}`,
		`{"session_id":"s1","timestamp":"2026-01-15T12:00:00Z","source":"a","hook":"Stop","decision":"block","enforcement":"enforced"}`,
		`{"session_id":"s1","timestamp":"2026-01-15T12:00:00Z","source":"a","hook":"PreToolUse","decision":"ask","enforcement":"enforced"}`,
		`{"session_id":"s1","timestamp":"2026-01-15T12:00:00Z","source":"a","hook":"PreToolUse","decision":"allow","reason":"gate-error","enforcement":"failed-open"}`,
		`{"session_id":"s1","timestamp":"2026-01-15T12:00:00Z","source":"a","hook":"Stop","decision":"block","dry_run":true,"enforcement":"dry-run"}`,
		`{"session_id":"s1","timestamp":"2026-01-15T12:00:00Z","source":"a","hook":"Stop","decision":"escalated","enforcement":"gave-way"}`,
		`{"session_id":"s1","timestamp":"2026-01-15T12:00:00Z","source":"a","hook":"PreToolUse","decision":"allow","enforcement":"enforced"}`,
	} {
		ev, ok := ParseEvent([]byte(raw))
		if !ok || ev.Gate == nil {
			t.Fatalf("not a decision: %s", raw)
		}
		g.add(ev.Gate)
	}
	if want := (GateTally{Stopped: 2, Asked: 1, FailedOpen: 1, DryRun: 1}); g != want {
		t.Errorf("tally %+v, want %+v", g, want)
	}
}

// TestCountGatesReadsBeyondTheTail: the rows' counts take the decisions
// older than the tail window too, each once.
func TestCountGatesReadsBeyondTheTail(t *testing.T) {
	l := state.Layout{Root: t.TempDir()}
	if err := os.MkdirAll(l.LogsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	path := l.LogPath(logs.Name(logs.Decisions, ""))
	var buf []byte
	buf = append(buf, `{"session_id":"old","timestamp":"2026-01-15T10:00:00Z","source":"a","hook":"PreToolUse","decision":"deny","enforcement":"enforced"}`+"\n"...)
	// Many allows push the deny out of the tail window.
	for len(buf) < tailWindow*2 {
		buf = append(buf, `{"session_id":"busy","timestamp":"2026-01-15T11:00:00Z","source":"a","hook":"PreToolUse","decision":"allow","enforcement":"enforced"}`+"\n"...)
	}
	buf = append(buf, `{"session_id":"busy","timestamp":"2026-01-15T11:59:00Z","source":"b","hook":"Stop","decision":"block","enforcement":"enforced"}`+"\n"...)
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	st := New(l)
	st.ApplyTail(ReadTailStart(l), "")
	if got := st.Gates("old"); got.Stopped != 1 {
		t.Errorf("old session: %+v, want 1 stopped", got)
	}
	if got := st.Gates("busy"); got.Stopped != 1 {
		t.Errorf("busy session: %+v, want 1 stopped (counted once)", got)
	}
}
