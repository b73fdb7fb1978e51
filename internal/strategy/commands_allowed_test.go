package strategy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// Where project-defined commands may not run (anything but the hook path:
// gate.Input.RunCommands off), no command strategy, notify command or
// advisor runs; the command strategy says what it would have asked.
func TestProjectCommandsRunOnlyWhenAllowed(t *testing.T) {
	p := newProject(t, false)
	gs := p.gates("strategies:\n" +
		"  mine:\n    command: 'touch ran-command'\n    hooks: [PreToolUse, Stop]\n    fail_mode: closed\n" +
		"  notify:\n    command: 'touch ran-notify'\n")
	for _, tt := range []struct {
		name string
		tool map[string]any
	}{
		{hookio.PreToolUse, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}}},
		{hookio.Stop, nil},
	} {
		in := p.input(tt.name, tt.tool)
		in.RunCommands = false
		res := gate.Run(context.Background(), gs, in, gate.Policy{})
		var rec *gate.Record
		for i := range res.Records {
			if res.Records[i].Source == Source("mine") {
				rec = &res.Records[i]
			}
		}
		if rec == nil || rec.Decision != gate.Allow || rec.Reason != ReasonNotRun ||
			!strings.Contains(rec.Message, `"sh" "-c" "touch ran-command"`) || !strings.Contains(rec.Message, tt.name) {
			t.Fatalf("%s: the command strategy's record %+v (all %+v)", tt.name, rec, res.Records)
		}
	}
	for _, f := range []string{"ran-command", "ran-notify"} {
		if _, err := os.Stat(filepath.Join(p.layout.Root, f)); err == nil {
			t.Errorf("%s: a project command ran without RunCommands", f)
		}
	}
	// The hook path: they run.
	in := p.input(hookio.Stop, nil)
	gate.Run(context.Background(), gs, in, gate.Policy{})
	if _, err := os.Stat(filepath.Join(p.layout.Root, "ran-command")); err != nil {
		t.Errorf("the command strategy did not run on the hook path: %v", err)
	}
	// The notify command runs detached: wait until it has run, so that it
	// never writes into the project while the test's folder is removed.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(p.layout.Root, "ran-notify")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the notify command did not run on the hook path within 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
