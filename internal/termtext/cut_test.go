package termtext

import (
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"hello", 0, ""},
		{"hello", -1, ""},
		{"héllo", 2, "h"}, // é is two bytes: do not split it
		{"héllo", 3, "hé"},
		{"日本語", 4, "日"},
		{"日本語", 2, ""},
		{"\xff\xfe", 1, "\xff"}, // invalid bytes are each a start: kept as they are
	}
	for _, tt := range tests {
		got := Cut(tt.s, tt.n)
		if got != tt.want || utf8.ValidString(tt.s) && !utf8.ValidString(got) {
			t.Errorf("Cut(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
		if b := Cut([]byte(tt.s), tt.n); string(b) != tt.want {
			t.Errorf("Cut([]byte(%q), %d) = %q, want %q", tt.s, tt.n, b, tt.want)
		}
	}
}
