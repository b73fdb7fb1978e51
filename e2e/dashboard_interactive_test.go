package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/e2e/harness"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/logs"
)

// TestDashboardAndTerminalDialog drives the interactive Claude Code in
// tmux with spcstr tui open beside it, in another tmux server: the
// terminal's permission dialog and the dashboard's card are both up; an
// answer in the dashboard closes the dialog and the tool runs; an answer
// in the terminal withdraws the card (issue 31).
func TestDashboardAndTerminalDialog(t *testing.T) {
	requireHarness(t)
	tm, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("SPCSTR_E2E_REQUIRE") == "1" {
			t.Fatal("tmux is not installed (scripts/test installs it)")
		}
		t.Skip("tmux is not installed: run scripts/test, or install tmux")
	}
	base := t.TempDir()
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(rt) })
	reg := filepath.Join(base, "registry.json")
	scFile, err := filepath.Abs(filepath.Join("testdata", "dashboard", "permissions-interactive.json"))
	if err != nil {
		t.Fatal(err)
	}
	hook := "XDG_RUNTIME_DIR=" + harness.ShellQuote(rt) + " SPCSTR_PERMISSION_WAIT=50s SPCSTR_REGISTRY=" + harness.ShellQuote(reg) +
		" " + harness.ShellQuote(spcstrBin) + " hook"
	dash, ready, project := startDashboard(t, tm, rt, reg)
	ctx := t.Context()
	cc, err := env.Start(ctx, harness.InteractiveOptions{Options: harness.Options{Scenario: scFile, HookCommand: hook, OutDir: filepath.Join(base, "out"), Ready: ready}})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	waitScreen := func(want string, budget time.Duration) (string, bool) {
		err := harness.Wait(ctx, budget, want, func() bool { return strings.Contains(cc.Screen(), want) })
		return cc.Screen(), err == nil
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf(format+"\n--- claude:\n%s\n--- dashboard:\n%s", append(args, cc.Screen(), dash.screen())...)
	}
	if _, ok := waitScreen("❯", 90*time.Second); !ok {
		fail("the prompt box did not come up")
	}
	if err := cc.Type("Make two files."); err != nil {
		t.Fatal(err)
	}

	// 1. Both up; answered in the dashboard: the dialog closes, the
	// command runs.
	if _, ok := waitScreen("touch from-dashboard.txt", 2*time.Minute); !ok {
		fail("no dialog for the first call")
	}
	never := make(chan struct{})
	if !dash.waitScreen(never, time.Minute, "needs permission", "touch from-dashboard.txt") {
		fail("no card for the first call")
	}
	dash.run("send-keys", "-t", dash.session, "y")
	// 2. The second call: answered in the terminal (1 = Yes).
	if scr, ok := waitScreen("touch from-terminal.txt", 2*time.Minute); !ok || !fileExists(filepath.Join(*project, "from-dashboard.txt")) {
		fail("the dashboard's allow did not run the first command (second dialog up: %v):\n%s", ok, scr)
	}
	if !dash.waitScreen(never, time.Minute, "needs permission", "touch from-terminal.txt") {
		fail("no card for the second call")
	}
	if err := cc.Keys("1"); err != nil {
		t.Fatal(err)
	}
	if !dash.waitScreen(never, time.Minute, "answered in the terminal") {
		fail("the card was not withdrawn after the terminal's answer")
	}
	if strings.Contains(dash.screen(), "touch from-terminal.txt") && strings.Contains(dash.last, "y allow once") {
		fail("the card is still up")
	}
	deadline := time.Now().Add(time.Minute)
	for !fileExists(filepath.Join(*project, "from-terminal.txt")) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !fileExists(filepath.Join(*project, "from-terminal.txt")) {
		fail("the terminal's yes did not run the second command")
	}
	if _, ok := waitScreen("Done.", time.Minute); !ok {
		fail("the turn did not end")
	}
	_ = cc.Type("/exit")
	// SessionEnd's hook writes into the project as the client exits: the
	// test's folders go once it is recorded.
	if err := harness.Wait(ctx, time.Minute, "SessionEnd", func() bool { return cc.Recorded("SessionEnd") > 0 }); err != nil {
		fail("%v", err)
	}

	// Who answered, in the decision records.
	var got []string
	deadline = time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		got = got[:0]
		_ = logs.ScanFile(filepath.Join(*project, ".spcstr", "logs", "decisions.json"), func(raw []byte) error {
			var rec gate.Record
			if json.Unmarshal(raw, &rec) == nil && rec.Hook == "PermissionRequest" {
				got = append(got, rec.Source+":"+rec.Decision)
			}
			return nil
		})
		if len(got) >= 2 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	wantEqual(t, "who answered", strings.Join(got, " "), "dashboard:allow terminal:ask")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
