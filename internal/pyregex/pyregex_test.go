package pyregex

import (
	"strings"
	"testing"
)

// Patterns written for Python's re match as Python's re.search would.
func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern         string
		matches, misses []string
	}{
		{`git\s+commit(?!.*--amend)`, []string{"git commit -m x"}, []string{"git commit --amend", "git status"}},
		{`(?<!echo )git\s+push`, []string{"git push origin", "cd x; git push"}, []string{"echo git push"}},
		{`(?P<q>['"]).*(?P=q)`, []string{`echo "x"`}, []string{`echo "x'`}},
		{`(\w+)\s+\1`, []string{"rm rm -rf"}, []string{"rm -rf"}},
		{`^git push\Z`, []string{"git push"}, []string{"git push origin"}},
	} {
		for _, s := range c.matches {
			if ok, err := Match(c.pattern, s); !ok || err != nil {
				t.Errorf("%s does not match %q (%v)", c.pattern, s, err)
			}
		}
		for _, s := range c.misses {
			if ok, err := Match(c.pattern, s); ok || err != nil {
				t.Errorf("%s matches %q (%v)", c.pattern, s, err)
			}
		}
	}
	if _, err := Compile(`git(?=commit`); err == nil {
		t.Error("an invalid pattern compiled")
	}
	// Catastrophic backtracking runs out of time instead of hanging.
	if ok, err := Match(`^(a+)+\1$`, strings.Repeat("a", 40)+"b"); ok || err == nil {
		t.Errorf("ok %v err %v, want a timeout", ok, err)
	}
}
