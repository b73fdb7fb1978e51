// Package pathglob owns how spcstr matches project paths against the globs
// users write in .spcstr/config.yaml (feedback-loop rules, allowed output
// folders): slash-separated, "**" across folders, bare names anywhere.
package pathglob

import (
	"path"
	"path/filepath"
	"strings"
)

// Match matches name (slash-separated) against pattern. Segments match as
// in path.Match; a "**" segment matches any number of segments, including
// none; a pattern without "/" matches the base name in any folder, and a
// pattern ending in "/" matches everything below that folder.
func Match(pattern, name string) bool {
	pattern = strings.TrimPrefix(pattern, "./")
	name = strings.TrimPrefix(name, "./")
	if strings.HasSuffix(pattern, "/") {
		pattern += "**"
	}
	if !strings.Contains(pattern, "/") {
		ok, _ := path.Match(pattern, path.Base(name))
		return ok
	}
	return globSegs(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func globSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			for i := 0; i <= len(name); i++ {
				if globSegs(rest, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// Rel makes p relative to root when it is inside it (forward slashes),
// and returns it cleaned otherwise.
func Rel(root, p string) string {
	if p == "" {
		return ""
	}
	if root != "" && filepath.IsAbs(p) {
		if r, err := filepath.Rel(root, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(r)
		}
	}
	return filepath.ToSlash(filepath.Clean(p))
}
