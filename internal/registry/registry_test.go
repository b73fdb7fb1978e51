package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestShortID(t *testing.T) {
	tests := map[string]string{
		"cad0ac4d-3933-45ad-9a1c-14aec05bb940": "cad0ac4d",
		"cad0-ac4d-3933":                       "cad0ac4d",
		"abc":                                  "abc",
		"":                                     "",
		"12345678":                             "12345678",
		"123456789":                            "12345678",
	}
	for in, want := range tests {
		if got := ShortID(in); got != want {
			t.Errorf("ShortID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPath(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	getenv := func(k string) string { return env[k] }
	if got := Path(getenv); got != "/home/u/.claude/sessions.json" {
		t.Errorf("Path = %q", got)
	}
	env["SPCSTR_REGISTRY"] = "/tmp/reg.json"
	if got := Path(getenv); got != "/tmp/reg.json" {
		t.Errorf("Path with override = %q", got)
	}
}

func TestRegisterPruneRemove(t *testing.T) {
	p := filepath.Join(t.TempDir(), "claude", "sessions.json")
	ctx := context.Background()
	live := map[int]bool{100: true, 200: true}
	alive := func(pid int) bool { return live[pid] }
	t1 := Now(time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC))
	t2 := t1 + 60

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(Register(ctx, p, "aaaaaaaa-1111-2222-3333-444444444444", Entry{PID: 1, PPID: 100, ProjectDir: "/p", Branch: "main", StartedAt: t1, LastActive: t1}, alive))
	must(Register(ctx, p, "bbbbbbbb-1111", Entry{PID: 2, PPID: 200, StartedAt: t1, LastActive: t1}, alive))
	f := Load(p)
	if len(f.Sessions) != 2 || f.Version != "1.0" {
		t.Fatalf("after two registrations: %+v", f)
	}
	e, ok := f.Lookup("aaaaaaaa-1111-2222-3333-444444444444")
	if !ok || e.SessionID != "aaaaaaaa-1111-2222-3333-444444444444" || e.ProjectDir != "/p" || e.Branch != "main" {
		t.Errorf("Lookup full id = %+v, %v", e, ok)
	}
	if _, ok := f.Lookup("aaaaaaaa"); !ok {
		t.Error("Lookup by short id failed")
	}

	// Re-registering keeps the first start time and refreshes the rest.
	must(Register(ctx, p, "aaaaaaaa-1111-2222-3333-444444444444", Entry{PID: 3, PPID: 100, StartedAt: t2, LastActive: t2}, alive))
	e, _ = Load(p).Lookup("aaaaaaaa")
	if e.StartedAt != t1 || e.LastActive != t2 || e.PID != 3 {
		t.Errorf("re-register: %+v", e)
	}

	// The Claude Code process of bbbbbbbb dies: the next registration prunes it.
	delete(live, 200)
	must(Register(ctx, p, "cccccccc", Entry{PID: 4, PPID: 100, StartedAt: t2, LastActive: t2}, alive))
	f = Load(p)
	if _, ok := f.Lookup("bbbbbbbb"); ok || len(f.Sessions) != 2 {
		t.Errorf("dead session not pruned: %+v", f.Sessions)
	}
	// Entries without a ppid (written by someone else) are not pruned.
	must(Register(ctx, p, "dddddddd", Entry{PID: 5}, alive))
	must(Register(ctx, p, "eeeeeeee", Entry{PID: 6, PPID: 100}, alive))
	if _, ok := Load(p).Lookup("dddddddd"); !ok {
		t.Error("entry without ppid pruned")
	}

	must(Remove(ctx, p, "cccccccc"))
	must(Remove(ctx, p, "not-there"))
	f = Load(p)
	if _, ok := f.Lookup("cccccccc"); ok {
		t.Error("Remove left the entry")
	}
	if len(f.Sessions) != 3 {
		t.Errorf("sessions = %v", f.Sessions)
	}
}

// The Python framework's registry keeps its keys and fields.
func TestRegisterKeepsForeignFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sessions.json")
	py := `{"version": "1.0", "sessions": {"12345678": {"pid": 9, "ppid": 77, "project_dir": "/x", "branch": "dev", "started_at": 1700000000.5, "last_active": 1700000100.25}}}`
	if err := os.WriteFile(p, []byte(py), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Register(context.Background(), p, "abcdefgh-0000", Entry{PID: 1, PPID: 1}, func(pid int) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	f := Load(p)
	e, ok := f.Lookup("12345678")
	if !ok || e.ProjectDir != "/x" || e.StartedAt != 1700000000.5 || e.PPID != 77 {
		t.Errorf("foreign entry changed: %+v, %v", e, ok)
	}
}

func TestLoadMissingOrCorrupt(t *testing.T) {
	dir := t.TempDir()
	for _, content := range []string{"", "{", `{"version":"1.0"}`, `[]`} {
		p := filepath.Join(dir, "r.json")
		_ = os.WriteFile(p, []byte(content), 0o644)
		f := Load(p)
		if f.Sessions == nil || len(f.Sessions) != 0 {
			t.Errorf("Load(%q) = %+v", content, f)
		}
		if _, err := os.Stat(p); err != nil {
			t.Error("Load moved the file: readers never set aside")
		}
	}
	if f := Load(filepath.Join(dir, "none.json")); f.Sessions == nil {
		t.Error("missing registry has nil sessions")
	}
	// A corrupt registry is set aside by the next writer, not overwritten.
	p := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(p, []byte("{garbage"), 0o644)
	if err := Register(context.Background(), p, "s1", Entry{PID: 1}, func(int) bool { return true }); err != nil {
		t.Fatal(err)
	}
	if asides, _ := filepath.Glob(p + ".corrupt-*"); len(asides) != 1 {
		t.Errorf("corrupt registry not set aside: %v", asides)
	}
	if _, ok := Load(p).Lookup("s1"); !ok {
		t.Error("registration lost after set-aside")
	}
}

func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Error("own pid not alive")
	}
	if Alive(0) || Alive(-1) {
		t.Error("non-positive pid alive")
	}
	if Alive(1 << 30) {
		t.Error("absurd pid alive")
	}
}

// The registry is shared with the Python requirements framework: fields
// spcstr does not know, and known fields written with another type, must
// survive spcstr's rewrite, and must not make the registry unreadable.
func TestRegisterKeepsForeignFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.json")
	foreign := `{"version": "1.0", "tool": "requirements-framework",
 "sessions": {
  "cad0ac4d": {"pid": 10, "ppid": 11, "project_dir": "/p", "branch": "main",
               "started_at": "2026-01-01T00:00:00Z", "last_active": 5, "metrics": {"edits": 3}}}}`
	if err := os.WriteFile(path, []byte(foreign), 0o644); err != nil {
		t.Fatal(err)
	}
	alive := func(int) bool { return true }
	if err := Register(context.Background(), path, "0123abcd-0000-4000-8000-000000000000", Entry{PPID: 42, ProjectDir: "/q"}, alive); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got["tool"] != "requirements-framework" {
		t.Errorf("top-level key lost: %s", data)
	}
	sessions := got["sessions"].(map[string]any)
	old := sessions["cad0ac4d"].(map[string]any)
	if m, _ := old["metrics"].(map[string]any); m == nil || m["edits"] != float64(3) {
		t.Errorf("unknown entry field lost: %s", data)
	}
	if old["started_at"] != "2026-01-01T00:00:00Z" {
		t.Errorf("started_at of another type was not kept as written: %v", old["started_at"])
	}
	if _, ok := sessions["0123abcd"]; !ok {
		t.Errorf("new session not registered: %s", data)
	}
	if f := Load(path); len(f.Sessions) != 2 {
		t.Errorf("Load sees %d sessions, want 2", len(f.Sessions))
	}

	// Registering the foreign session again: spcstr's fields are set, the
	// unknown ones still kept.
	if err := Register(context.Background(), path, "cad0ac4d-3933-45ad-9a1c-14aec05bb940", Entry{PPID: 11, ProjectDir: "/p", StartedAt: 100, LastActive: 100}, alive); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	got = nil
	_ = json.Unmarshal(data, &got)
	old = got["sessions"].(map[string]any)["cad0ac4d"].(map[string]any)
	if m, _ := old["metrics"].(map[string]any); m == nil {
		t.Errorf("unknown entry field lost on re-register: %s", data)
	}
	if _, isNum := old["started_at"].(float64); !isNum || old["session_id"] != "cad0ac4d-3933-45ad-9a1c-14aec05bb940" {
		t.Errorf("re-register did not set spcstr's fields: %s", data)
	}
}

// One malformed entry used to make the next registration drop every other
// session (other projects' too). The entries that parse are kept, the
// whole original is set aside first, and a later write is clean.
func TestMalformedEntryKeepsOthers(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sessions.json")
	orig := `{"version":"1.0","sessions":{"c1":"yes","good1111":{"pid":1,"ppid":100,"project_dir":"/other"},"good2222":{"pid":2,"ppid":100,"custom":[1]}},"python_key":true}`
	if err := os.WriteFile(p, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	alive := func(int) bool { return true }
	if err := Register(context.Background(), p, "newnew99-aaaa", Entry{PID: 3, PPID: 100}, alive); err != nil {
		t.Fatal(err)
	}
	f := Load(p)
	for _, k := range []string{"good1111", "good2222", "newnew99"} {
		if _, ok := f.Sessions[k]; !ok {
			t.Errorf("entry %s lost: %v", k, f.Sessions)
		}
	}
	asides, _ := filepath.Glob(p + ".corrupt-*")
	if len(asides) != 1 {
		t.Fatalf("original not set aside: %v", asides)
	}
	if data, _ := os.ReadFile(asides[0]); string(data) != orig {
		t.Errorf("set-aside copy differs: %s", data)
	}
	data, _ := os.ReadFile(p)
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil || v["python_key"] != true {
		t.Errorf("registry after rewrite: %v %s", err, data)
	}
	// A clean registry is not set aside again.
	_ = Register(context.Background(), p, "other999", Entry{PPID: 100}, alive)
	if asides, _ := filepath.Glob(p + ".corrupt-*"); len(asides) != 1 {
		t.Errorf("asides: %v", asides)
	}
}

// A huge registry (20 MB of stale entries made SessionStart take 3 s) is
// pruned and bounded on the next registration.
func TestRegistryBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sessions.json")
	sessions := map[string]any{}
	for i := 0; i < 3*MaxEntries; i++ {
		sessions[fmt.Sprintf("s%07d", i)] = map[string]any{"pid": i, "ppid": 100, "last_active": float64(i), "project_dir": strings.Repeat("p", 100)}
	}
	data, _ := json.Marshal(map[string]any{"version": "1.0", "sessions": sessions})
	_ = os.WriteFile(p, data, 0o644)
	if err := Register(context.Background(), p, "newest00", Entry{PPID: 100, LastActive: 1}, func(int) bool { return true }); err != nil {
		t.Fatal(err)
	}
	f := Load(p)
	if len(f.Sessions) != MaxEntries {
		t.Errorf("%d entries, want %d", len(f.Sessions), MaxEntries)
	}
	if _, ok := f.Sessions["newest00"]; !ok {
		t.Error("the registering session was dropped")
	}
	if _, ok := f.Sessions[fmt.Sprintf("s%07d", 3*MaxEntries-1)]; !ok {
		t.Error("the most recently active entry was dropped")
	}
}

func TestTouch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.json")
	ctx := context.Background()
	alive := func(int) bool { return true }
	if err := Register(ctx, path, "abcdef12-0000", Entry{PPID: 1, StartedAt: 100, LastActive: 100}, alive); err != nil {
		t.Fatal(err)
	}
	again := Entry{PPID: 7, ProjectDir: "/p", StartedAt: 90, LastActive: 90}
	for _, tt := range []struct {
		id        string
		now       float64
		key       string
		want      float64
		wantStart float64
	}{
		{"abcdef12-0000", 130, "abcdef12", 130, 100},
		{"abcdef12-0000", 120, "abcdef12", 130, 100}, // never backwards, entry kept
		// Missing (the framework's write undid its registration): registered again.
		{"ffffffff-0000", 500, "ffffffff", 500, 90},
	} {
		if err := Touch(ctx, path, tt.id, tt.now, again); err != nil {
			t.Fatal(err)
		}
		e, ok := Load(path).Lookup(tt.key)
		if !ok || e.LastActive != tt.want || e.StartedAt != tt.wantStart {
			t.Errorf("Touch(%s, %v): %+v (found %v), want last_active %v started_at %v", tt.id, tt.now, e, ok, tt.want, tt.wantStart)
		}
	}
	if e, _ := Load(path).Lookup("abcdef12"); e.PPID != 1 {
		t.Errorf("Touch replaced a registered entry: %+v", e)
	}
	if e, _ := Load(path).Lookup("ffffffff"); e.SessionID != "ffffffff-0000" || e.PPID != 7 {
		t.Errorf("re-registered entry %+v", e)
	}
}
