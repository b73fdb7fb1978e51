package safefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Within returns root/rel for a path a configuration names relative to a
// project root, after checking that it stays inside root: rel must be
// local (relative, no ".." climbing out), and the deepest part of it that
// exists must resolve, symlinks followed, inside root. The result is that
// resolved folder joined with the part that does not exist yet, so a
// writer creates it there. A symlink swapped in after the check is not
// seen; writers that must be race-free open root with os.OpenRoot.
func Within(root, rel string) (string, error) {
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%q: %w (give a relative path without ..)", rel, ErrOutside)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", root, err)
	}
	existing := filepath.Join(root, rel)
	rest := ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = filepath.Dir(existing)
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", existing, err)
	}
	if real != realRoot && !strings.HasPrefix(real, realRoot+string(filepath.Separator)) {
		return "", fmt.Errorf("%q leads to %s: %w", rel, real, ErrOutside)
	}
	return filepath.Join(real, rest), nil
}
