package install

import (
	"os"
	"path/filepath"
)

// Companions are the binaries installed beside spcstr: spcstr-tui draws
// the dashboard, spcstr-otel ships to OpenTelemetry and spcstr-pyre
// matches requirement command patterns only Python's syntax accepts, so
// that none of their libraries is linked into the hook's binary.
var Companions = []string{"spcstr-tui", "spcstr-otel", "spcstr-pyre"}

// FindCompanion finds the companion binary name: next to exe (the running
// spcstr, symlinks resolved) first, then on PATH through lookPath.
func FindCompanion(name, exe string, lookPath func(string) (string, error)) (string, bool) {
	if exe != "" {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), name+filepath.Ext(exe))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
	}
	if p, err := lookPath(name); err == nil {
		return p, true
	}
	return "", false
}
