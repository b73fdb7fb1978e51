// Command run is the quick way to watch the demo from a checkout:
//
//	go run ./demo/run [spcstr demo flags]
//
// It is a small program (standard library only) that compiles in a second,
// says that it is building spcstr, builds it with `go build` (the first
// build downloads and compiles the dashboard's dependencies and takes about
// two minutes on two cores; later ones come from Go's build cache), and
// runs `spcstr demo` with the given flags. go build's own output (a line
// per module it downloads) is kept back, and shown only if the build
// fails, so that the message saying what is happening stays on screen. `go run ./cmd/spcstr demo` works too, but go run compiles
// all of spcstr before spcstr can print anything.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
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
	fmt.Fprintln(os.Stderr, "building spcstr (go build ./cmd/spcstr): the first build downloads and compiles its dependencies, about 2 minutes; later ones take seconds…")
	build := exec.Command("go", "build", "-o", bin, "./cmd/spcstr")
	build.Dir = filepath.Dir(mod)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	var out bytes.Buffer
	build.Stdout, build.Stderr = &out, &out
	start := time.Now()
	if err := build.Start(); err != nil {
		return 1, fmt.Errorf("go build ./cmd/spcstr: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- build.Wait() }()
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case err := <-done:
			if err != nil {
				os.Stderr.Write(out.Bytes())
				return 1, fmt.Errorf("go build ./cmd/spcstr: %w", err)
			}
			waiting = false
		case <-tick.C:
			fmt.Fprintf(os.Stderr, "still building spcstr (%ds)…\n", int(time.Since(start).Seconds()))
		}
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
