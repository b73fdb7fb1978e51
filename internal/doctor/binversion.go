package doctor

// The version of a binary a project's settings name, read from the build
// information Go embeds in it, never by running it. It lives here, not in
// internal/buildinfo: debug/buildinfo brings debug/elf, debug/dwarf and
// compress/flate, whose package inits spcstr-hook (which links
// internal/buildinfo for its own version) would run on every tool call.

import (
	gobuildinfo "debug/buildinfo"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/buildinfo"
)

// maxBinary bounds the file readBinaryVersion reads the build of (a Go binary of
// spcstr is a few tens of megabytes).
const maxBinary = 1 << 30

// readBinaryVersion describes the build of the Go binary at path in buildinfo.String's words,
// from the build information Go embeds in it (debug/buildinfo): the
// program is read, never run, so a binary a project's settings name
// cannot execute anything (docs/security.md). The release's -X values are
// read from the -ldflags setting Go records. It reads only a regular file.
func readBinaryVersion(path string) (string, error) {
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
	return buildinfo.Describe(v, c, d, info) + " " + info.GoVersion + " " + goos + "/" + goarch, nil
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
