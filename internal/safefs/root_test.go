package safefs

import (
	"os"
	"path/filepath"
	"testing"
)

// OpenRootCreate opens a folder below a root, creating it when missing,
// and never leaves the root.
func TestOpenRootCreate(t *testing.T) {
	base := t.TempDir()
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "sessions", "old"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "sessions", "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(base, "sessions", "out")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(base)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, c := range []struct {
		dir  string
		ok   bool
		made bool
	}{
		{"sessions/old", true, false},
		{"sessions/new/deeper", true, true},
		{"sessions/file", false, false},
		{"sessions/out", false, false},
		{"sessions/out/inside", false, false},
	} {
		sub, err := OpenRootCreate(root, c.dir)
		if (err == nil) != c.ok {
			t.Errorf("%s: err = %v, want ok %v", c.dir, err, c.ok)
		}
		if err == nil {
			if fi, serr := os.Stat(filepath.Join(base, c.dir)); serr != nil || !fi.IsDir() {
				t.Errorf("%s: not a folder after the open: %v", c.dir, serr)
			}
			sub.Close()
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("something was made outside the root: %v", entries)
	}
}
