package strategy

import (
	"context"
	"fmt"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/pathglob"
	"github.com/dylan-gluck/spcstr/state"
)

// inRepo reports whether root is inside a git work tree, by reading .git
// (no process).
func inRepo(root string) bool {
	_, ok := gitrepo.Find(root)
	return ok
}

// uncommitted returns the paths `git status --porcelain` lists, except
// spcstr's own folder and paths matching ignore.
func uncommitted(ctx context.Context, root string, ignore []string) ([]string, error) {
	lines, err := gitrepo.Run(ctx, root, "status", "--porcelain")
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
