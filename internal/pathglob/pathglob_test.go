package pathglob

import "testing"

func TestPathglob(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*.md", "README.md", true},
		{"*.md", "docs/a/b.md", true},
		{"docs/", "docs/a/b.md", true},
		{"docs/", "src/docs/b.md", false},
		{"docs/**", "docs", true},
		{".claude/.output/", ".claude/.output/x/y.md", true},
		{"**/*_test.go", "a/b/c_test.go", true},
		{"**/*_test.go", "c_test.go", true},
		{"a/**/c", "a/c", true},
		{"a/**/c", "a/x/y/c", true},
		{"a/**/c", "a/x/y/d", false},
		{"./cmd/*", "cmd/x", true},
		{"cmd/*", "cmd/x/y", false},
		{"README*", "README.md", true},
		{"README*", "sub/README.md", true},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.name); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
	if got := Rel("/p", "/p/a/b.go"); got != "a/b.go" {
		t.Errorf("Rel inside = %q", got)
	}
	if got := Rel("/p", "/q/b.go"); got != "/q/b.go" {
		t.Errorf("Rel outside = %q", got)
	}
	if got := Rel("/p", "/p2/b.go"); got != "/p2/b.go" {
		t.Errorf("Rel sibling prefix = %q", got)
	}
}
