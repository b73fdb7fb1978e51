package buildinfo

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

func TestDescribeBuild(t *testing.T) {
	vcs := func(kv ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
		for i := 0; i+1 < len(kv); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return info
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		name    string
		v, c, d string
		info    *debug.BuildInfo
		want    string
	}{
		{"no build info", "", "", "", nil, "spcstr dev"},
		{"checkout without vcs stamping", "", "", "", vcs(), "spcstr dev"},
		{"clean checkout", "", "", "", vcs("vcs.revision", rev, "vcs.time", "2026-11-24T03:00:00Z", "vcs.modified", "false"),
			"spcstr dev (0123456789ab, 2026-11-24T03:00:00Z)"},
		{"checkout with changes", "", "", "", vcs("vcs.revision", rev, "vcs.time", "2026-11-24T03:00:00Z", "vcs.modified", "true"),
			"spcstr dev (0123456789ab, 2026-11-24T03:00:00Z, modified)"},
		{"go install mod@version", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "spcstr v1.2.3"},
		{"release ldflags win", "1.2.3", "fedcba987654321", "2026-01-02T03:04:05Z",
			vcs("vcs.revision", rev, "vcs.time", "2025-01-01T00:00:00Z", "vcs.modified", "true"),
			"spcstr 1.2.3 (fedcba987654, 2026-01-02T03:04:05Z)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Describe(tt.v, tt.c, tt.d, tt.info); got != tt.want {
				t.Errorf("Describe = %q, want %q", got, tt.want)
			}
		})
	}
}

// ReadFile reads a binary's build without running it: the test binary's
// own build reads as String describes the running one.
func TestReadFileIsTheRunningBuild(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	got, err := ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if want := String(); got != want {
		t.Fatalf("ReadFile(test binary) = %q, want %q", got, want)
	}
	if _, err := ReadFile(t.TempDir()); err == nil {
		t.Fatal("ReadFile of a directory: no error")
	}
	script := filepath.Join(t.TempDir(), "spcstr-hook")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho spcstr v9\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if v, err := ReadFile(script); err == nil {
		t.Fatalf("ReadFile of a shell script = %q, want an error", v)
	}
}

func TestLdflagsValues(t *testing.T) {
	const pkg = "github.com/dylan-gluck/spcstr/internal/buildinfo."
	tests := []struct{ flags, v, c, d string }{
		{"", "", "", ""},
		{"-s -w -X " + pkg + "version=1.2.3 -X " + pkg + "commit=abc -X " + pkg + "date=2026-01-02", "1.2.3", "abc", "2026-01-02"},
		{"-X=" + pkg + "version=2.0.0", "2.0.0", "", ""},
		{"-X other/pkg.version=6.6.6 -X '" + pkg + "commit=def'", "", "def", ""},
	}
	for _, tt := range tests {
		info := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "-ldflags", Value: tt.flags}}}
		v, c, d := ldflagsValues(info)
		if v != tt.v || c != tt.c || d != tt.d {
			t.Errorf("ldflagsValues(%q) = %q %q %q, want %q %q %q", tt.flags, v, c, d, tt.v, tt.c, tt.d)
		}
	}
}
