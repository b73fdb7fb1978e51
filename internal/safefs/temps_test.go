package safefs

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestIsTempName(t *testing.T) {
	for name, want := range map[string]bool{
		".state.json2938475":          true,
		".post_tool_use.json.tmp-123": true,
		".config.yaml42":              true,
		".state.json.lock":            false,
		".state.json.spare":           false,
		"state.json":                  false,
		".state.json":                 false,
		".gitkeep1":                   false,
		"state.json.corrupt-20260102": false,
	} {
		if got := IsTempName(name); got != want {
			t.Errorf("IsTempName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestRemoveStaleTemps removes old temp files of the named document only:
// not fresh ones (a live writer's), not other documents', not the
// document, its lock or a directory with a temp file's name.
func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * time.Minute)
	files := map[string]bool{ // name → should remain
		".state.json123":       false,
		".state.json9":         false,
		".state.json456":       true, // fresh
		".other.json123":       true,
		"state.json":           true,
		".state.json.lock":     true,
		".state.json.spare":    true,
		".state.jsonx12":       true,
		"state.json.corrupt-1": true,
	}
	for name := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if name != ".state.json456" {
			_ = os.Chtimes(p, old, old)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, ".state.json777"), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(filepath.Join(dir, ".state.json777"), old, old)
	files[".state.json777"] = true
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	n, err := RemoveStaleTemps(root, ".", "state.json", time.Now().Add(-time.Minute))
	if err != nil || n != 2 {
		t.Fatalf("RemoveStaleTemps = %d, %v; want 2", n, err)
	}
	for name, remain := range files {
		_, err := os.Lstat(filepath.Join(dir, name))
		if (err == nil) != remain {
			t.Errorf("%s: remains %v, want %v", name, err == nil, remain)
		}
	}
}
