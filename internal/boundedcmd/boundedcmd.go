// Package boundedcmd runs the short external commands spcstr starts for
// the person at the terminal, outside the hook path: the terminals' own
// command-line interfaces (internal/focus) and desktop notifications
// (tui/notify). Each runs under a deadline, in a process group of its own
// that is killed (SIGKILL to the whole group) when the deadline passes, so
// neither a program that ignores SIGTERM nor a child holding its output
// can hang the caller; each gets only the environment it is given, never
// the caller's whole environment (docs/security.md).
package boundedcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// DefaultTimeout bounds a command whose Cmd sets no Timeout.
const DefaultTimeout = 5 * time.Second

// maxOutput bounds what is kept of each of a command's outputs.
const maxOutput = 1 << 20

// waitDelay is how long, after the command exits or is killed, its output
// pipes may stay open (a grandchild holding them) before they are closed.
const waitDelay = 500 * time.Millisecond

// ErrDeadline reports a command killed at its deadline.
var ErrDeadline = errors.New("did not finish in time and was stopped")

// Cmd is one command to run.
type Cmd struct {
	// Name is the program: a path, or a name looked up on PATH (the
	// caller's own PATH, not Env's).
	Name string
	Args []string
	// Env is the child's whole environment ("KEY=value"); Pick builds it.
	Env []string
	// Timeout bounds the run (0: DefaultTimeout).
	Timeout time.Duration
}

// BaseKeys are the variables every command gets when the caller has them:
// enough to find programs, the user's home, locale and temporary and
// runtime directories.
var BaseKeys = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "XDG_RUNTIME_DIR"}

// Pick is the environment of BaseKeys and keys, read with getenv; unset
// or empty variables are left out.
func Pick(getenv func(string) string, keys ...string) []string {
	var env []string
	seen := map[string]bool{}
	for _, k := range append(append([]string(nil), BaseKeys...), keys...) {
		if seen[k] {
			continue
		}
		seen[k] = true
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// Run runs c and returns its standard output. The error of a failed run
// names the program and its first arguments and carries what it printed on
// standard error (cut to 200 bytes); one killed at its deadline wraps
// ErrDeadline.
func Run(ctx context.Context, c Cmd) (string, error) {
	path, err := exec.LookPath(c.Name)
	if err != nil {
		return "", fmt.Errorf("%s is not installed here (not on PATH): %w", c.Name, err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, c.Args...)
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	ownGroup(cmd)
	cmd.WaitDelay = waitDelay
	stdout, stderr := &capped{n: maxOutput}, &capped{n: maxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	if err == nil && ctx.Err() == nil {
		return stdout.String(), nil
	}
	what := c.Name
	if len(c.Args) > 0 {
		what += " " + strings.Join(c.Args[:min(len(c.Args), 3)], " ")
	}
	if ctx.Err() != nil {
		return "", fmt.Errorf("%s: %w (after %v): %w", what, ErrDeadline, timeout, ctx.Err())
	}
	msg := strings.TrimSpace(stderr.String())
	if len(msg) > 200 {
		msg = strings.ToValidUTF8(msg[:200], "")
	}
	if msg != "" {
		return "", fmt.Errorf("%s: %s: %w", what, msg, err)
	}
	return "", fmt.Errorf("%s: %w", what, err)
}

// capped keeps the first n bytes written and drops the rest.
type capped struct {
	bytes.Buffer
	n int
}

func (w *capped) Write(p []byte) (int, error) {
	if room := w.n - w.Len(); room > 0 {
		w.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
