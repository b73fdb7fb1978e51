//go:build unix

package boundedcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A command that ignores SIGTERM and leaves a child holding its output is
// killed, group and all, at its deadline: Run returns then, not when the
// child would have finished.
func TestRunKillsTheGroupAtTheDeadline(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	script := `trap '' TERM; sleep 600 & echo $! > "$1"; wait`
	start := time.Now()
	_, err := Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", script, "sh", pidFile},
		Env: Pick(os.Getenv), Timeout: 300 * time.Millisecond})
	took := time.Since(start)
	if !errors.Is(err, ErrDeadline) {
		t.Fatalf("Run = %v, want ErrDeadline", err)
	}
	// Generous: the deadline plus the pipe delay plus a loaded machine.
	if budget := 300*time.Millisecond + waitDelay + 10*time.Second; took > budget {
		t.Fatalf("Run returned after %v, past its deadline's budget %v", took, budget)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the script did not start its child: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the background child %d outlived its group's kill", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The child gets the environment it is given and nothing else.
func TestRunPassesOnlyTheGivenEnvironment(t *testing.T) {
	t.Setenv("SPCSTR_TEST_SECRET", "hunter2")
	t.Setenv("SPCSTR_TEST_WANTED", "yes")
	out, err := Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", "env"},
		Env: Pick(os.Getenv, "SPCSTR_TEST_WANTED")})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "hunter2") || !strings.Contains(out, "SPCSTR_TEST_WANTED=yes") || !strings.Contains(out, "PATH=") {
		t.Fatalf("the child's environment:\n%s", out)
	}
}

func TestRunSaysWhy(t *testing.T) {
	_, err := Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", "echo nope >&2; exit 3"}, Env: Pick(os.Getenv)})
	if err == nil || !strings.Contains(err.Error(), "nope") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("Run = %v", err)
	}
	if _, err := Run(context.Background(), Cmd{Name: "spcstr-no-such-program"}); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Fatalf("Run of a missing program = %v", err)
	}
}
