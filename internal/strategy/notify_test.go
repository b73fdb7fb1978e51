package strategy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// waitFile waits for a file a detached command writes.
func waitFile(t *testing.T, path string) []byte {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && len(data) > 0 && data[len(data)-1] == '\n' {
			return data
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
	return nil
}

func TestNotify(t *testing.T) {
	p := newProject(t, false)
	dir := t.TempDir()
	// The command waits for a file the test creates only after Evaluate
	// returned: were the hook waiting for the command, this would hang.
	cmd := `n=0; while [ ! -f go ]; do sleep 0.02; done; cat > "out-$SPCSTR_STATUS.json"; printf '%s\n' "$SPCSTR_MESSAGE" > "msg-$SPCSTR_STATUS.txt"`
	gs := p.gates("strategies:\n  notify:\n    bell: true\n    command: " + strconvQuote(cmd) + "\n")
	tests := []struct {
		event  string
		fields map[string]any
		status string
		msg    string
	}{
		{hookio.Notification, map[string]any{"message": "Claude is waiting for your input\x1b[2J", "notification_type": "idle_prompt"}, NotifyNeedsInput, "Claude is waiting for your input"},
		{hookio.PermissionRequest, map[string]any{"tool_name": "Bash"}, NotifyNeedsPermission, "Claude needs your permission to use Bash"},
		{hookio.Stop, nil, NotifyFinished, "Claude finished"},
	}
	for _, tt := range tests {
		in := p.input(tt.event, tt.fields)
		in.Layout.Root = dir // the command runs in the project root
		vs := run(t, gs, in)
		if len(vs) != 1 || vs[0].Decision != gate.Allow || !strings.HasPrefix(vs[0].Reason, "notified:"+tt.status) || !strings.Contains(vs[0].Reason, "command") {
			t.Fatalf("%s: %+v", tt.event, vs)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		var m NotifyMessage
		data := waitFile(t, filepath.Join(dir, "out-"+tt.status+".json"))
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v: %s", tt.status, err, data)
		}
		want := tt.msg + " (" + filepath.Base(dir) + ")"
		if m.SessionID != "s1" || m.Event != tt.event || m.Status != tt.status || m.Message != want || m.ProjectDir != dir {
			t.Errorf("stdin = %+v, want message %q", m, want)
		}
		if env := strings.TrimSpace(string(waitFile(t, filepath.Join(dir, "msg-"+tt.status+".txt")))); env != want {
			t.Errorf("SPCSTR_MESSAGE = %q, want %q", env, want)
		}
	}
	// Other events are not its business; a command that cannot start is an
	// error (the strategy fails open).
	if vs := run(t, gs, p.input(hookio.PostToolUse, map[string]any{"tool_name": "Bash"})); len(vs) != 0 {
		t.Fatalf("PostToolUse = %+v", vs)
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
