package logs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestList lists a logs folder: regular logs only, in name order, each
// log's rotated segments oldest first before the live one.
func TestList(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"stop.json", "pre_tool_use.json", "pre_tool_use.2.json", "pre_tool_use.1.json",
		"decisions.json", ".pre_tool_use.json.lock", "stop.json.corrupt-1", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("[]"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "session_end.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "notification.json")); err != nil {
		t.Fatal(err)
	}
	names := func(keep func(File) bool) string {
		found, err := List(dir, keep)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range found {
			out = append(out, filepath.Base(f.Path))
		}
		return strings.Join(out, " ")
	}
	if got, want := names(func(File) bool { return true }), "decisions.json pre_tool_use.1.json pre_tool_use.2.json pre_tool_use.json stop.json"; got != want {
		t.Errorf("all: %q, want %q", got, want)
	}
	if got, want := names(func(f File) bool { return f.Kind == Events }), "pre_tool_use.1.json pre_tool_use.2.json pre_tool_use.json stop.json"; got != want {
		t.Errorf("events: %q, want %q", got, want)
	}
	paths, err := EventLogs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		paths[i] = filepath.Base(p)
	}
	if got, want := strings.Join(paths, " "), "pre_tool_use.1.json pre_tool_use.2.json pre_tool_use.json stop.json"; got != want {
		t.Errorf("EventLogs: %q, want %q", got, want)
	}
	if found, err := List(filepath.Join(dir, "missing"), func(File) bool { return true }); err != nil || len(found) != 0 {
		t.Errorf("missing folder: %v %v", found, err)
	}
}
