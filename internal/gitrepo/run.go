package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// RunTimeout bounds one git command Run starts.
const RunTimeout = 5 * time.Second

// Run runs one git command in root and returns its output lines. Unlike
// the rest of this package it starts git: the strategies call it only at
// the hooks their documentation names (Stop, SubagentStop, SessionStart),
// never on every tool call.
func Run(ctx context.Context, root string, args ...string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, RunTimeout)
	defer cancel()
	// core.fsmonitor off: a repository's own .git/config may name a program
	// (strategy dry-run runs git outside the hook path: docs/security.md).
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.fsmonitor=false", "-C", root}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}
