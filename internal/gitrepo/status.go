package gitrepo

import (
	"strconv"
	"strings"
)

// StatusPaths reads the lines `git status --porcelain` (format v1) prints
// and returns the path of each entry, relative to the work tree's top and
// slash-separated: the new path of a rename or copy, a quoted path
// (git quotes one with special characters, C-style) unquoted. It is the
// one reader of that format; lines too short to hold a path are skipped.
func StatusPaths(lines []string) []string {
	var out []string
	for _, l := range lines {
		if len(l) < 4 {
			continue
		}
		p := strings.TrimSpace(l[3:])
		if _, to, ok := strings.Cut(p, " -> "); ok {
			p = to // a rename or copy
		}
		out = append(out, unquote(p))
	}
	return out
}

// unquote undoes git's C-style quoting of a path (core.quotePath): octal
// escapes for bytes outside ASCII, backslash escapes for the rest. A path
// that does not unquote is kept without its quotes.
func unquote(p string) string {
	if len(p) < 2 || p[0] != '"' || p[len(p)-1] != '"' {
		return p
	}
	if s, err := strconv.Unquote(p); err == nil {
		return s
	}
	return strings.Trim(p, `"`)
}
