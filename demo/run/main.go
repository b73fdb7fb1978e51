// Command run is the quick way to watch the demo from a checkout:
//
//	go run ./demo/run [spcstr demo flags]
//
// It is a small program (standard library only) that compiles in a second,
// says that it is building spcstr, builds it with `go build` (the first
// build compiles the dashboard's dependencies and takes about a minute;
// later ones come from Go's build cache), and runs `spcstr demo` with the
// given flags. `go run ./cmd/spcstr demo` works too, but go run compiles
// all of spcstr before spcstr can print anything.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	code, err := run(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo/run:", err)
	}
	os.Exit(code)
}

func run(args []string) (int, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return 1, fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(gomod))
	if mod == "" || mod == os.DevNull {
		return 1, errors.New("run this from a checkout of spcstr")
	}
	tmp, err := os.MkdirTemp("", "spcstr-demo-bin-")
	if err != nil {
		return 1, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "spcstr")
	fmt.Fprintln(os.Stderr, "building spcstr (go build ./cmd/spcstr; the first build takes about a minute, later ones a few seconds)…")
	build := exec.Command("go", "build", "-o", bin, "./cmd/spcstr")
	build.Dir = filepath.Dir(mod)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return 1, fmt.Errorf("go build ./cmd/spcstr: %w", err)
	}
	demo := exec.Command(bin, append([]string{"demo"}, args...)...)
	demo.Stdin, demo.Stdout, demo.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := demo.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), nil
		}
		return 1, err
	}
	return 0, nil
}
