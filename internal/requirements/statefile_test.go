package requirements

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func generic(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return v
}

// A state file written by the Python framework (its schema, plus
// fields spcstr does not know and a field of an unexpected type) loads with
// the framework's meaning and is written back with nothing lost or changed.
func TestPythonStateRoundTrip(t *testing.T) {
	data := readFixture(t, "python-state.json")
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if f.Version != "1.0" || f.Branch != "feature/auth" || f.CreatedAt != 1234567890 || f.UpdatedAt != 1234567899.25 {
		t.Errorf("header = %q %q %v %v", f.Version, f.Branch, f.CreatedAt, f.UpdatedAt)
	}
	now := float64(1234567895)
	checks := []struct {
		name, scope, key string
		satisfied        bool
		triggered        bool
	}{
		{"commit_plan", ScopeSession, "abc12345", true, false},
		{"commit_plan", ScopeSession, "def45678", false, true},
		{"commit_plan", ScopeSession, "new00000", false, false},
		{"pre_commit_review", ScopeSingleUse, "abc12345", true, true},
		{"permanent_req", ScopePermanent, "anyone00", true, false},
		{"github_ticket", ScopeBranch, "anyone00", true, false},
		{"odd_types", ScopeSession, "abc12345", false, false},
	}
	for _, c := range checks {
		if got := f.IsSatisfied(c.name, c.scope, c.key, now); got != c.satisfied {
			t.Errorf("IsSatisfied(%s, %s) = %v, want %v", c.name, c.key, got, c.satisfied)
		}
		if got := f.IsTriggered(c.name, c.scope, c.key); got != c.triggered {
			t.Errorf("IsTriggered(%s, %s) = %v, want %v", c.name, c.key, got, c.triggered)
		}
	}
	// The branch-scoped requirement has a TTL: expired later.
	if f.IsSatisfied("github_ticket", ScopeBranch, "x", 1234571491) {
		t.Error("github_ticket satisfied after expires_at")
	}
	out, err := json.Marshal(&f)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(generic(t, data), generic(t, out)) {
		t.Errorf("round trip changed the file:\nin:  %s\nout: %s", bytes.Join(bytes.Fields(data), nil), out)
	}
}

// Changing one requirement leaves every other byte of meaning alone.
func TestPythonStateSurvivesAnUpdate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "feature-auth.json")
	if err := os.WriteFile(path, readFixture(t, "python-state.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	loc := Location{Root: "/path/to/project", Branch: "feature/auth", Dir: dir, Path: path}
	now := time.Unix(1234569000, 0)
	if _, err := loc.Update(context.Background(), now, func(f *File) bool {
		f.Satisfy("commit_plan", ScopeSession, "new00000", false, ByCLI, nil, unix(now))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := generic(t, readFixture(t, "python-state.json")).(map[string]any)
	want["updated_at"] = float64(1234569000)
	sessions := want["requirements"].(map[string]any)["commit_plan"].(map[string]any)["sessions"].(map[string]any)
	sessions["new00000"] = map[string]any{"satisfied": true, "satisfied_at": float64(1234569000), "satisfied_by": "cli", "expires_at": nil}
	if !reflect.DeepEqual(want, generic(t, got)) {
		t.Errorf("after update:\n%s", got)
	}
}

func TestMigrateKeys(t *testing.T) {
	var f File
	if err := json.Unmarshal(readFixture(t, "legacy-keys.json"), &f); err != nil {
		t.Fatal(err)
	}
	if !f.MigrateKeys() {
		t.Fatal("MigrateKeys reported no change")
	}
	s := f.Requirements["commit_plan"].Sessions
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	if len(s) != 3 || s["cad0ac4d"] == nil || s["0a1b2c3d"] == nil || s["session-1"] == nil {
		t.Fatalf("keys after migration = %v", keys)
	}
	// Newer timestamp wins, whichever form it had.
	if e := s["cad0ac4d"]; !e.Satisfied || e.SatisfiedAt != 2000 || e.SatisfiedBy != "skill" {
		t.Errorf("cad0ac4d = %+v, want the full-id entry (newer)", e)
	}
	if e := s["0a1b2c3d"]; e.SatisfiedAt != 1900 || e.SatisfiedBy != "cli" {
		t.Errorf("0a1b2c3d = %+v, want the short entry (newer)", e)
	}
	// Older versions' "timestamp" field counts too, and survives.
	old := f.Requirements["old_style"].Sessions
	if len(old) != 1 || string(old["deadbeef"].obj.extra["method"]) != `"cli"` {
		t.Errorf("old_style = %v", old)
	}
	// Idempotent.
	if f.MigrateKeys() {
		t.Error("second MigrateKeys changed something")
	}
}

func TestLegacyKey(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"cad0ac4d-3933-45ad-9a1c-14aec05bb940", "cad0ac4d", true},
		{"cad0ac4d393345ad9a1c14aec05bb940", "cad0ac4d", true},
		{"cad0ac4d", "", false},
		{"abc123", "", false},
		{"session-123456", "", false},
		{"not-a-uuid-at-all-zzzz", "", false},
	} {
		got, ok := legacyKey(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("legacyKey(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// A corrupt state file is set aside, never overwritten, and the writer
// starts afresh with a notice; readers report it without moving it.
func TestCorruptStateSetAside(t *testing.T) {
	dir := t.TempDir()
	loc := Location{Root: dir, Branch: "main", Dir: dir, Path: filepath.Join(dir, "main.json")}
	if err := os.WriteFile(loc.Path, []byte(`{"requirements": {`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loc.Load(); err == nil {
		t.Fatal("Load of a corrupt file: no error")
	}
	if _, err := os.Stat(loc.Path); err != nil {
		t.Fatal("reader moved the corrupt file")
	}
	now := time.Unix(5000, 0)
	notice, err := loc.Update(context.Background(), now, func(f *File) bool {
		f.Satisfy("x", ScopeBranch, "", false, ByCLI, nil, 5000)
		return true
	})
	if err != nil || !strings.Contains(notice, "set aside") {
		t.Fatalf("Update: notice %q, err %v", notice, err)
	}
	matches, _ := filepath.Glob(loc.Path + ".corrupt-*")
	if len(matches) != 1 {
		t.Fatalf("set-aside files: %v", matches)
	}
	if b, _ := os.ReadFile(matches[0]); string(b) != `{"requirements": {` {
		t.Errorf("set-aside content changed: %q", b)
	}
	f, err := loc.Load()
	if err != nil || !f.IsSatisfied("x", ScopeBranch, "", 5000) || f.Version != StateVersion || f.Branch != "main" || f.CreatedAt != 5000 {
		t.Errorf("fresh file = %+v, %v", f, err)
	}
}
