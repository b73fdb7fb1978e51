// Package buildinfo describes the running build of spcstr and spcstr-hook
// in one line, so that both binaries print the same version and spcstr
// doctor can compare them.
package buildinfo

import (
	gobuildinfo "debug/buildinfo"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
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

// maxBinary bounds the file ReadFile reads the build of (a Go binary of
// spcstr is a few tens of megabytes).
const maxBinary = 1 << 30

// ReadFile describes the build of the Go binary at path in String's words,
// from the build information Go embeds in it (debug/buildinfo): the
// program is read, never run, so a binary a project's settings name
// cannot execute anything (docs/security.md). The release's -X values are
// read from the -ldflags setting Go records. It reads only a regular file.
func ReadFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxBinary {
		return "", fmt.Errorf("%s is not a regular file of a Go program", path)
	}
	info, err := gobuildinfo.Read(f)
	if err != nil {
		return "", fmt.Errorf("%s carries no Go build information (not a Go program?): %w", path, err)
	}
	v, c, d := ldflagsValues(info)
	goos, goarch := "", ""
	for _, s := range info.Settings {
		switch s.Key {
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		}
	}
	return Describe(v, c, d, info) + " " + info.GoVersion + " " + goos + "/" + goarch, nil
}

// ldflagsValues reads the -X values of this package's version, commit and
// date from the -ldflags a binary was built with.
func ldflagsValues(info *debug.BuildInfo) (v, c, d string) {
	const pkg = "github.com/dylan-gluck/spcstr/internal/buildinfo."
	var flags string
	for _, s := range info.Settings {
		if s.Key == "-ldflags" {
			flags = s.Value
		}
	}
	words := strings.Fields(flags)
	for i := 0; i < len(words); i++ {
		w := strings.Trim(words[i], `"'`)
		var def string
		switch {
		case (w == "-X" || w == "--X") && i+1 < len(words):
			i++
			def = strings.Trim(words[i], `"'`)
		case strings.HasPrefix(w, "-X="):
			def = w[len("-X="):]
		default:
			continue
		}
		name, val, ok := strings.Cut(strings.TrimPrefix(def, pkg), "=")
		if !ok || !strings.HasPrefix(def, pkg) {
			continue
		}
		switch name {
		case "version":
			v = val
		case "commit":
			c = val
		case "date":
			d = val
		}
	}
	return v, c, d
}
