// Command spcstr-pyre is spcstr's companion for requirement command
// patterns written for Python's re that Go's RE2 cannot compile
// (look-arounds, back-references): spcstr hook runs it for such a pattern
// only, so the backtracking engine's package init is not paid by every
// hook call (internal/pyregex).
//
//	spcstr-pyre PATTERN < TEXT   exit 0: matches, 1: does not, 2: PATTERN is invalid, 3: error
//	spcstr-pyre -check PATTERN   exit 0: valid, 2: invalid
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/dylan-gluck/spcstr/internal/pyregex"
)

// maxText bounds the text read from stdin (a Bash command).
const maxText = 16 << 20

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stderr))
}

func run(args []string, stdin io.Reader, stderr io.Writer) int {
	check := len(args) == 2 && args[0] == "-check"
	if check {
		args = args[1:]
	}
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: spcstr-pyre PATTERN < TEXT | spcstr-pyre -check PATTERN")
		return 3
	}
	if _, err := pyregex.Compile(args[0]); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if check {
		return 0
	}
	text, err := io.ReadAll(io.LimitReader(stdin, maxText))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 3
	}
	ok, err := pyregex.Match(args[0], string(text))
	switch {
	case err != nil:
		fmt.Fprintln(stderr, err)
		return 3
	case ok:
		return 0
	}
	return 1
}
