package recorder

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/permchan"
)

// A PermissionRequest no gate decides goes to the project's dashboard
// when one is open; the dashboard's answer is the hook's answer and a
// decision record (issue 31).
func TestPermissionRequestAnsweredByTheDashboard(t *testing.T) {
	const suggestion = `[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm publish:*"}],"behavior":"allow","destination":"localSettings"}]`
	payload := ev("PermissionRequest", "s-dash", `"tool_name":"Bash","tool_input":{"command":"npm publish"},"permission_suggestions":`+suggestion)
	for _, tc := range []struct {
		name       string
		answer     *permchan.Answer // nil: left to the terminal
		wantOut    string
		wantRecord string
	}{
		{"allow", &permchan.Answer{Behavior: permchan.Allow},
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`, "allow"},
		{"deny with message", &permchan.Answer{Behavior: permchan.Deny, Message: "use the staging registry"},
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"use the staging registry"}}}`, "deny"},
		{"deny", &permchan.Answer{Behavior: permchan.Deny},
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"` + DenyMessage + `"}}}`, "deny"},
		{"always", &permchan.Answer{Behavior: permchan.Allow, Always: true},
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":` + suggestion + `}}}`, "allow"},
		{"left to the terminal", nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProject(t)
			rt, err := os.MkdirTemp("", "rt")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(rt) })
			p.env["XDG_RUNTIME_DIR"] = rt
			dir := permchan.Dir(func(k string) string { return p.env[k] })
			srv, err := permchan.Listen(dir, p.root, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			done := make(chan error, 1)
			go func() {
				select {
				case pend := <-srv.Requests():
					if pend.Request.ToolName != "Bash" || pend.Request.SessionID != "s-dash" ||
						!strings.Contains(string(pend.Request.Suggestions), "npm publish:*") {
						t.Errorf("request = %+v", pend.Request)
					}
					if tc.answer == nil {
						pend.Leave()
						done <- nil
						return
					}
					done <- pend.Reply(*tc.answer)
				case <-time.After(30 * time.Second):
					done <- os.ErrDeadlineExceeded
				}
			}()
			out, _ := p.run([]byte(payload), "")
			if err := <-done; err != nil {
				t.Fatalf("dashboard: %v", err)
			}
			if strings.TrimSpace(out) != tc.wantOut {
				t.Errorf("answer:\n got %s\nwant %s", out, tc.wantOut)
			}
			var recs []gate.Record
			if _, err := os.Stat(filepath.Join(p.root, ".spcstr/logs/decisions.json")); err == nil {
				recs = decisionRecords(t, p)
			}
			if tc.wantRecord == "" {
				if len(recs) != 0 {
					t.Errorf("records: %+v", recs)
				}
				return
			}
			if len(recs) != 1 || recs[0].Source != gate.SourceDashboard || recs[0].Decision != tc.wantRecord ||
				recs[0].Hook != "PermissionRequest" || recs[0].SessionID != "s-dash" {
				b, _ := json.Marshal(recs)
				t.Errorf("records: %s", b)
			}
		})
	}
}

// With no dashboard open, or answering turned off, the hook answers
// nothing and does not wait.
func TestPermissionRequestWithoutDashboard(t *testing.T) {
	p := newProject(t)
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(rt) })
	p.env["XDG_RUNTIME_DIR"] = rt
	payload := ev("PermissionRequest", "s-none", `"tool_name":"Bash","tool_input":{"command":"ls"}`)
	if out, _ := p.run([]byte(payload), ""); out != "" {
		t.Errorf("answer with no dashboard: %s", out)
	}
	dir := permchan.Dir(func(k string) string { return p.env[k] })
	srv, err := permchan.Listen(dir, p.root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	p.env[permchan.WaitEnv] = "0"
	if out, _ := p.run([]byte(payload), ""); out != "" {
		t.Errorf("answer with answering turned off: %s", out)
	}
	select {
	case pend := <-srv.Requests():
		t.Errorf("a request was posted with %s=0: %+v", permchan.WaitEnv, pend.Request)
	default:
	}
}
