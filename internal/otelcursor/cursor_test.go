package otelcursor

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/state"
)

func TestShipped(t *testing.T) {
	for name, want := range map[string]bool{
		"pre_tool_use.json":   true,
		"pre_tool_use.3.json": true,
		"decisions.json":      true,
		"decisions.12.json":   true,
		"rejected.json":       false,
		"repairs.json":        false,
		".stop.json.tmp-123":  false,
		".stop.json":          false,
		"stop.json.corrupt-x": false,
		"stop.x.json":         false,
		"notes.txt":           false,
	} {
		if got := Shipped(name); got != want {
			t.Errorf("Shipped(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestSaveLoadAndRotation(t *testing.T) {
	l := state.Layout{Root: t.TempDir()}
	if err := os.MkdirAll(l.LogsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	cur := filepath.Join(l.LogsDir(), "stop.json")
	if err := os.WriteFile(cur, []byte("[\n{}\n]"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(cur)
	c := New()
	c.Files["stop.json"] = &File{ID: FileID(fi), Offset: 4}
	if err := c.Save(l, time.Now()); err != nil {
		t.Fatal(err)
	}
	got, err := Load(l)
	if err != nil {
		t.Fatal(err)
	}
	if got.Offset("stop.json", FileID(fi)) != 4 {
		t.Fatalf("offset not kept: %+v", got.Files)
	}
	// Rotation renames the log: its progress follows it; the new log
	// starts at 0.
	if err := os.Rename(cur, filepath.Join(l.LogsDir(), "stop.1.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cur, []byte("[\n{}\n]"), 0o644); err != nil {
		t.Fatal(err)
	}
	rot, _ := os.Stat(filepath.Join(l.LogsDir(), "stop.1.json"))
	fresh, _ := os.Stat(cur)
	if FileID(rot) != 0 {
		if got.Offset("stop.1.json", FileID(rot)) != 4 || got.Offset("stop.json", FileID(fresh)) != 0 {
			t.Errorf("after rotation: rotated at %d (want 4), new at %d (want 0)",
				got.Offset("stop.1.json", FileID(rot)), got.Offset("stop.json", FileID(fresh)))
		}
	}
}

func TestLoadSetsAsideDamage(t *testing.T) {
	for name, data := range map[string]string{
		"not json":        "{",
		"unknown version": `{"version": 99, "files": {}}`,
		"wrong types":     `{"version": 1, "files": []}`,
	} {
		t.Run(name, func(t *testing.T) {
			l := state.Layout{Root: t.TempDir()}
			if err := os.MkdirAll(l.Dir(), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(Path(l), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Load(l)
			if !errors.Is(err, ErrCorrupt) || c == nil || len(c.Files) != 0 {
				t.Fatalf("Load = %+v, %v; want an empty cursor and ErrCorrupt", c, err)
			}
			if _, err := os.Stat(Path(l)); !os.IsNotExist(err) {
				t.Errorf("damaged cursor still in place")
			}
			aside, _ := filepath.Glob(Path(l) + ".corrupt-*")
			if len(aside) != 1 {
				t.Errorf("damaged cursor not set aside: %v", aside)
			}
		})
	}
}
