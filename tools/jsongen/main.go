// Command jsongen runs easyjson (go tool easyjson, pinned in go.mod) with
// its arguments, then points the generated files' import of easyjson's root
// package at internal/jsoncodec, which declares the two interfaces the
// generated code uses: the root package imports net/http, which would put
// the HTTP and TLS stacks into the hook's binary (internal/jsoncodec's doc).
// The go:generate lines of state, logs and internal/observe run it.
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"strings"
)

const (
	rootImport = `easyjson "github.com/mailru/easyjson"`
	ownImport  = `easyjson "github.com/dylan-gluck/spcstr/internal/jsoncodec"`
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "jsongen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	cmd := exec.Command("go", append([]string{"tool", "easyjson"}, args...)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("easyjson: %w", err)
	}
	for _, out := range outputs(args) {
		src, err := os.ReadFile(out)
		if err != nil {
			return err
		}
		if !bytes.Contains(src, []byte(rootImport)) {
			return fmt.Errorf("%s: no %s to replace (has easyjson changed?)", out, rootImport)
		}
		src, err = format.Source(bytes.Replace(src, []byte(rootImport), []byte(ownImport), 1))
		if err != nil {
			return fmt.Errorf("%s: %w", out, err)
		}
		if err := os.WriteFile(out, src, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// outputs returns the files easyjson writes for args: -output_filename's,
// else <input>_easyjson.go for each input file.
func outputs(args []string) []string {
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-output_filename" && i+1 < len(args):
			return []string{args[i+1]}
		case strings.HasPrefix(a, "-output_filename="):
			return []string{strings.TrimPrefix(a, "-output_filename=")}
		case strings.HasPrefix(a, "-"):
		case strings.HasSuffix(a, ".go"):
			files = append(files, strings.TrimSuffix(a, ".go")+"_easyjson.go")
		}
	}
	return files
}
