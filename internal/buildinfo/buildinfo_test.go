package buildinfo

import (
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
