package doctor

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/buildinfo"
)

// readBinaryVersion reads a binary's build without running it: the test binary's
// own build reads as buildinfo.String describes the running one.
func TestReadBinaryVersionIsTheRunningBuild(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	got, err := readBinaryVersion(exe)
	if err != nil {
		t.Fatal(err)
	}
	if want := buildinfo.String(); got != want {
		t.Fatalf("readBinaryVersion(test binary) = %q, want %q", got, want)
	}
	if _, err := readBinaryVersion(t.TempDir()); err == nil {
		t.Fatal("ReadFile of a directory: no error")
	}
	script := filepath.Join(t.TempDir(), "spcstr-hook")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho spcstr v9\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if v, err := readBinaryVersion(script); err == nil {
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
