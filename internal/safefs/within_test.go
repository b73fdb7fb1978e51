package safefs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWithin(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "logs", "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "logs"), filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	realRoot, _ := filepath.EvalSymlinks(root)
	for _, c := range []struct {
		rel, want string
		bad       bool
	}{
		{rel: "obs", want: filepath.Join(realRoot, "obs")},
		{rel: "logs/in/deeper/x", want: filepath.Join(realRoot, "logs/in/deeper/x")},
		{rel: "alias/obs", want: filepath.Join(realRoot, "logs/obs")}, // a symlink inside is fine
		{rel: "out", bad: true},
		{rel: "out/obs", bad: true},
		{rel: "../x", bad: true},
		{rel: "logs/../../x", bad: true},
		{rel: "/tmp/x", bad: true},
		{rel: "", bad: true},
	} {
		got, err := Within(root, c.rel)
		if c.bad {
			if !errors.Is(err, ErrOutside) {
				t.Errorf("Within(%q) = %q, %v; want ErrOutside", c.rel, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Within(%q) = %q, %v; want %q", c.rel, got, err, c.want)
		}
	}
}
