// Command testcount reads `go test -json` on stdin and prints a readable
// report: each package's result line, the whole output of every failed
// test, the reason of every skipped top-level test, and as its last line
//
//	N passed, N failed, N skipped
//
// counting every test and subtest once. A package that fails without a
// failed test (a build error, a panic in TestMain, a timeout) counts as one
// failure. It exits 1 when anything failed, so that
// `go test -json ./... | go run ./tools/testcount` can stand for go test.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

type event struct {
	Action     string `json:"Action"`
	Package    string `json:"Package"`
	ImportPath string `json:"ImportPath"`
	Test       string `json:"Test"`
	Output     string `json:"Output"`
}

type key struct{ pkg, test string }

func main() {
	passed, failed, skipped, err := run(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testcount:", err)
		failed++
	}
	fmt.Printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if failed > 0 || passed == 0 {
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) (passed, failed, skipped int, err error) {
	output := map[key][]string{}
	pkgFailedTests := map[string]int{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if json.Unmarshal(line, &e) != nil || e.Action == "" {
			fmt.Fprintf(out, "%s\n", line) // not an event: go's own message
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			fmt.Fprint(out, e.Output)
		case "output":
			if e.Test == "" {
				// Package-level lines: ok/FAIL summaries, TestMain output.
				if s := strings.TrimSpace(e.Output); s != "PASS" && s != "FAIL" && !strings.HasPrefix(s, "=== ") {
					fmt.Fprint(out, e.Output)
				}
				continue
			}
			output[k] = append(output[k], e.Output)
		case "pass":
			if e.Test != "" {
				passed++
			}
			delete(output, k)
		case "skip":
			if e.Test != "" {
				skipped++
				if !strings.Contains(e.Test, "/") {
					fmt.Fprintf(out, "SKIP %s (%s):\n%s", e.Test, e.Package, indent(output[k]))
				}
			}
			delete(output, k)
		case "fail":
			if e.Test == "" {
				if pkgFailedTests[e.Package] == 0 {
					failed++ // the package failed with no failed test
				}
				continue
			}
			failed++
			pkgFailedTests[e.Package]++
			fmt.Fprintf(out, "--- FAIL %s (%s):\n%s", e.Test, e.Package, indent(output[k]))
			delete(output, k)
		}
	}
	return passed, failed, skipped, sc.Err()
}

// indent keeps a test's own lines (not the === RUN/--- markers go test
// adds), indented.
func indent(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		b.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
