package main

import (
	"bytes"
	"strings"
	"testing"
)

// The exit codes spcstr relies on.
func TestRun(t *testing.T) {
	for _, c := range []struct {
		args  []string
		stdin string
		want  int
	}{
		{[]string{`git\s+commit(?!.*--amend)`}, "git commit -m x", 0},
		{[]string{`git\s+commit(?!.*--amend)`}, "git commit --amend", 1},
		{[]string{`git(?=commit`}, "git commit", 2},
		{[]string{"-check", `(?<!echo )git`}, "", 0},
		{[]string{"-check", `git(?=x`}, "", 2},
		{[]string{`^(a+)+\1$`}, strings.Repeat("a", 40) + "b", 3},
		{nil, "", 3},
	} {
		var stderr bytes.Buffer
		if got := run(c.args, strings.NewReader(c.stdin), &stderr); got != c.want {
			t.Errorf("%q < %q: exit %d, want %d (%s)", c.args, c.stdin, got, c.want, stderr.String())
		}
	}
}
