// Package testshared locates the shared test material (the hook payload
// corpus, the harness captures) for tests of other packages. It is
// <module root>/../shared unless SPCSTR_SHARED names another folder. The
// material is required: a test that needs it fails, with a clear message,
// when it is missing, rather than skipping and hiding a gap.
package testshared

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the shared folder, failing the test when it does not exist.
func Dir(t testing.TB) string {
	t.Helper()
	d := os.Getenv("SPCSTR_SHARED")
	if d == "" {
		root, err := ModuleRoot()
		if err != nil {
			t.Fatalf("locate module root: %v", err)
		}
		d = filepath.Join(root, "..", "shared")
	}
	d = filepath.Clean(d)
	if fi, err := os.Stat(filepath.Join(d, "corpus")); err != nil || !fi.IsDir() {
		t.Fatalf("shared test material not found at %s (need %s/corpus and %s/harness/captures): "+
			"check out ../shared next to the repository or set SPCSTR_SHARED to its path", d, d, d)
	}
	return d
}

// ModuleRoot returns the folder holding go.mod, searching up from the
// working directory (a package's folder under go test).
func ModuleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", os.ErrNotExist
		}
		d = parent
	}
}
