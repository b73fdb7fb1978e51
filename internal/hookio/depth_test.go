package hookio

import (
	"strings"
	"testing"
)

func TestScanDepth(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name             string
		data             string
		limit            int
		deep, surrogates bool
	}{
		{"flat", `{"a":1}`, 1, false, false},
		{"at the limit", nest(3), 3, false, false},
		{"one past", nest(4), 3, true, false},
		{"brackets in strings do not count", `{"a":"[[[[{{{{"}`, 1, false, false},
		{"escaped quote keeps the string open", `{"a":"\"[[["}`, 1, false, false},
		{"lone surrogate escape", `{"a":"\ud800"}`, 2, false, true},
		{"upper-case surrogate escape", `{"a":"\uDFFF"}`, 2, false, true},
		{"escaped backslash then u is text", `{"a":"\\ud800"}`, 2, false, false},
		{"a surrogate outside a string is no escape", `["ud800"]`, 2, false, false},
		{"hookio's limit", nest(MaxDepth), MaxDepth, false, false},
		{"hookio's limit passed", nest(MaxDepth + 1), MaxDepth, true, false},
	}
	for _, tt := range tests {
		deep, sur := ScanDepth([]byte(tt.data), tt.limit)
		if deep != tt.deep || sur != tt.surrogates {
			t.Errorf("%s: ScanDepth = %v, %v; want %v, %v", tt.name, deep, sur, tt.deep, tt.surrogates)
		}
	}
	if checkDepth([]byte(nest(MaxDepth+1))) != ErrTooDeep {
		t.Error("checkDepth lets a payload deeper than MaxDepth through")
	}
}

func TestValueEnd(t *testing.T) {
	for _, tt := range []struct {
		data string
		want int
	}{
		{`{"a":1}`, 7},
		{`{"a":"}"},"b":2}`, 9},
		{`[1,[2]] tail`, 7},
		{`{"a":{}`, -1},
		{`{"a":"\"}"}`, 11},
	} {
		if got := ValueEnd([]byte(tt.data)); got != tt.want {
			t.Errorf("ValueEnd(%s) = %d, want %d", tt.data, got, tt.want)
		}
	}
}
