package recorder

import (
	"path/filepath"
	"strings"
)

// How a tool's file path becomes an entry of files.new/edited/read.

// rel makes a tool's file path relative to the project root when it is
// inside it. Absolute paths are cleaned first ("root/src/../a.go" is
// "a.go", "root/../x" is outside). Windows paths (C:\..., and Git Bash's
// /c/... when the other side is a C:\ path) are compared case-insensitively
// with forward slashes; other paths are compared exactly, as the file
// systems they come from are case-sensitive.
func (a *applier) rel(p string) string {
	if p == "" {
		return ""
	}
	root := a.root
	if filepath.IsAbs(p) {
		p = filepath.Clean(p)
	}
	if root != "" {
		if p == root {
			return "."
		}
		if r, ok := strings.CutPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator)); ok {
			return r
		}
	}
	if !isWindowsPath(p) && !isWindowsPath(root) {
		return p
	}
	np, nr := winNorm(p), winNorm(root)
	if nr != "" && strings.HasPrefix(strings.ToLower(np), strings.ToLower(nr)+"/") {
		return np[len(nr)+1:]
	}
	return p
}

// isWindowsPath reports whether p is written the Windows way: a drive
// letter ("C:") or a backslash.
func isWindowsPath(p string) bool {
	return (len(p) >= 2 && p[1] == ':' && isLetter(p[0])) || strings.Contains(p, `\`)
}

func winNorm(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	// Git Bash form /c/Users/... → c:/Users/...
	if len(p) >= 3 && p[0] == '/' && p[2] == '/' && isLetter(p[1]) {
		p = p[1:2] + ":" + p[2:]
	}
	if len(p) >= 2 && p[1] == ':' && isLetter(p[0]) {
		p = strings.ToLower(p[:1]) + p[1:]
	}
	return strings.TrimSuffix(p, "/")
}

func isLetter(b byte) bool { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') }

func addFile(list *[]string, p string) {
	if p == "" || contains(*list, p) {
		return
	}
	*list = append(*list, p)
}

func contains(list []string, p string) bool {
	for _, x := range list {
		if x == p {
			return true
		}
	}
	return false
}
