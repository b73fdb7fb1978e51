// Package buildinfo describes the running build of spcstr and spcstr-hook
// in one line, so that both binaries print the same version and spcstr
// doctor can compare them.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Set by the release build (-ldflags "-X github.com/dylan-gluck/spcstr/internal/buildinfo.version=...").
var (
	version = ""
	commit  = ""
	date    = ""
)

// String describes this build: the release's ldflags when set, otherwise
// the module version and the VCS data Go embedded at build time (a `go
// build` or `go install` from a git checkout records the commit, its date
// and whether the work tree had uncommitted changes), then the Go version
// and platform.
func String() string {
	info, _ := debug.ReadBuildInfo()
	return Describe(version, commit, date, info) + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
}

// Describe is "spcstr VERSION (COMMIT, DATE[, modified])": the values set
// through -ldflags win; the build info fills in the rest.
func Describe(v, c, d string, info *debug.BuildInfo) string {
	modified := false
	if info != nil {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		ldflagsCommit := c != ""
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if c == "" {
					c = s.Value
				}
			case "vcs.time":
				if d == "" {
					d = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true" && !ldflagsCommit
			}
		}
	}
	if v == "" {
		v = "dev"
	}
	if len(c) > 12 {
		c = c[:12]
	}
	s := "spcstr " + v
	if c != "" {
		s += " (" + c
		if d != "" {
			s += ", " + d
		}
		if modified {
			s += ", modified"
		}
		s += ")"
	}
	return s
}
