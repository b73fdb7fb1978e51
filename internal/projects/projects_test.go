package projects

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// recordedDir makes a project folder holding .spcstr/.
func recordedDir(t *testing.T, parent, name string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(filepath.Join(dir, ".spcstr"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func paths(ps []Project) string {
	var out []string
	for _, p := range ps {
		out = append(out, filepath.Base(p.Path))
	}
	return strings.Join(out, " ")
}

func TestPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/h"}, "/h/.claude/spcstr-projects.json"},
		{map[string]string{"HOME": "/h", "SPCSTR_REGISTRY": "/r/reg.json"}, "/r/spcstr-projects.json"},
		{map[string]string{"SPCSTR_PROJECTS": "/p.json", "SPCSTR_REGISTRY": "/r/reg.json"}, "/p.json"},
	}
	for _, tt := range tests {
		if got := Path(env(tt.env)); got != tt.want {
			t.Errorf("Path(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

func TestRememberAndLoad(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	list := filepath.Join(tmp, "state", FileName)
	a, b, c := recordedDir(t, tmp, "a"), recordedDir(t, tmp, "b"), recordedDir(t, tmp, "c")
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)

	for i, dir := range []string{a, b, c} {
		if err := Remember(ctx, list, dir, t0.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if got := paths(Load(list)); got != "c b a" {
		t.Fatalf("newest first: %q", got)
	}

	// Seen again within Refresh: nothing is written.
	before, _ := os.ReadFile(list)
	if err := Remember(ctx, list, a, t0.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(list); string(after) != string(before) {
		t.Fatalf("rewritten within Refresh:\n%s", after)
	}
	// After Refresh it moves to the front.
	if err := Remember(ctx, list, a, t0.Add(2*Refresh)); err != nil {
		t.Fatal(err)
	}
	if got := paths(Load(list)); got != "a c b" {
		t.Fatalf("after refresh: %q", got)
	}

	// A project whose .spcstr/ is gone is dropped quietly: by readers at
	// once, from the file at the next write.
	if err := os.RemoveAll(b); err != nil {
		t.Fatal(err)
	}
	if got := paths(Load(list)); got != "a c" {
		t.Fatalf("stale kept by Load: %q", got)
	}
	d := recordedDir(t, tmp, "d")
	if err := Remember(ctx, list, d, t0.Add(3*Refresh)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(list)
	if strings.Contains(string(data), `/b"`) {
		t.Fatalf("stale project still in the file:\n%s", data)
	}
}

func TestCorruptListIsSetAside(t *testing.T) {
	tmp := t.TempDir()
	list := filepath.Join(tmp, FileName)
	if err := os.WriteFile(list, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Load(list); got != nil {
		t.Fatalf("Load of a corrupt list: %v", got)
	}
	if _, err := os.Stat(list); err != nil {
		t.Fatal("a reader moved the corrupt list:", err)
	}
	a := recordedDir(t, tmp, "a")
	if err := Remember(context.Background(), list, a, time.Now()); err != nil {
		t.Fatal(err)
	}
	aside, _ := filepath.Glob(list + ".corrupt-*")
	if len(aside) != 1 {
		t.Fatalf("set aside: %v", aside)
	}
	if kept, _ := os.ReadFile(aside[0]); string(kept) != "{not json" {
		t.Fatalf("the corrupt list was changed: %q", kept)
	}
	if got := paths(Load(list)); got != "a" {
		t.Fatalf("new list: %q", got)
	}
}

func TestBounded(t *testing.T) {
	tmp := t.TempDir()
	list := filepath.Join(tmp, FileName)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var f File
	f.Version = 1
	for i := range MaxProjects + 20 {
		dir := recordedDir(t, tmp, fmt.Sprintf("p%03d", i))
		f.Projects = append(f.Projects, Project{Path: dir, LastSeen: t0.Add(time.Duration(i) * time.Minute)})
	}
	data := []byte(`{"version":1,"projects":[`)
	for i, p := range f.Projects {
		if i > 0 {
			data = append(data, ',')
		}
		data = append(data, fmt.Sprintf(`{"path":%q,"last_seen":%q}`, p.Path, p.LastSeen.Format(time.RFC3339))...)
	}
	data = append(data, "]}"...)
	if err := os.WriteFile(list, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := len(Load(list)); got != MaxProjects {
		t.Fatalf("Load returned %d", got)
	}
	n := recordedDir(t, tmp, "new")
	if err := Remember(context.Background(), list, n, t0.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	got := Load(list)
	if len(got) != MaxProjects || filepath.Base(got[0].Path) != "new" || filepath.Base(got[len(got)-1].Path) != "p021" {
		t.Fatalf("kept %d: first %s last %s", len(got), got[0].Path, got[len(got)-1].Path)
	}
}
