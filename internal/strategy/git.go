package strategy

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/pathglob"
	"github.com/dylan-gluck/spcstr/state"
)

// gitTimeout bounds one git command run by a strategy.
const gitTimeout = 5 * time.Second

// inRepo reports whether root is inside a git work tree, by reading .git
// (no process).
func inRepo(root string) bool {
	_, ok := gitrepo.Find(root)
	return ok
}

// git runs one git command in root and returns its output lines. Strategies
// call it only at the hooks their documentation names (Stop, SubagentStop,
// SessionStart), never on every tool call.
func git(ctx context.Context, root string, args ...string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
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

// uncommitted returns the paths `git status --porcelain` lists, except
// spcstr's own folder and paths matching ignore.
func uncommitted(ctx context.Context, root string, ignore []string) ([]string, error) {
	lines, err := git(ctx, root, "status", "--porcelain")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range gitrepo.StatusPaths(lines) {
		if !spcstrPath(p) && !matchAny(ignore, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// spcstrPath reports whether a path git status lists is spcstr's own
// folder or inside it.
func spcstrPath(p string) bool {
	return p == state.DirName+"/" || strings.HasPrefix(p, state.DirName+"/")
}

func matchAny(globs []string, p string) bool {
	for _, g := range globs {
		if pathglob.Match(g, p) {
			return true
		}
	}
	return false
}

// listSome joins up to n items and says how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s (+%d more)", strings.Join(items[:n], ", "), len(items)-n)
}
