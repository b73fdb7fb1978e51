// Package pyregex matches regular expressions written for Python's re
// that Go's RE2 cannot compile (look-arounds, back-references), with a
// backtracking engine. spcstr links it; spcstr-hook does not (the engine's
// package init, Unicode class tables, would cost every hook call) and asks
// spcstr instead (spcstr matchpy): very few requirements need it
// (docs/performance.md has the figures).
package pyregex

import (
	"regexp"
	"strings"
	"time"

	"github.com/dlclark/regexp2"
)

// Timeout bounds one match: a pattern that backtracks catastrophically
// does not match rather than hang the hook.
const Timeout = 100 * time.Millisecond

// Compile compiles a pattern written for Python's re. Python's
// (?P<name>...) and (?P=name) are the engine's (?<name>...) and \k<name>;
// \Z is Python's absolute end, the engine's \z.
func Compile(pattern string) (*regexp2.Regexp, error) {
	py := regexp.MustCompile(`\(\?P=(\w+)\)`).ReplaceAllString(pattern, `\k<$1>`)
	py = strings.NewReplacer("(?P<", "(?<", `\Z`, `\z`).Replace(py)
	re, err := regexp2.Compile(py, regexp2.None)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = Timeout
	return re, nil
}

// Match reports whether pattern matches somewhere in text, as Python's
// re.search does. A match that runs out of time is an error.
func Match(pattern, text string) (bool, error) {
	re, err := Compile(pattern)
	if err != nil {
		return false, err
	}
	return re.MatchString(text)
}
