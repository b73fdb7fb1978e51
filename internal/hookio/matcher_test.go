package hookio

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// matcherCase is one row of testdata/matchers.json: the matcher table of
// Claude Code's hooks reference, plus variants, with the tools each
// matcher selects and misses. The e2e suite plays the same file through
// the real Claude Code (e2e/matchers_test.go).
type matcherCase struct {
	Matcher string   `json:"matcher"`
	Match   []string `json:"match"`
	Miss    []string `json:"miss"`
}

func matcherTable(t *testing.T) []matcherCase {
	t.Helper()
	data, err := os.ReadFile("testdata/matchers.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []matcherCase
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestMatcher(t *testing.T) {
	for _, tt := range matcherTable(t) {
		m, err := CompileMatcher(tt.Matcher)
		if err != nil {
			t.Fatalf("%q: %v", tt.Matcher, err)
		}
		for _, tool := range tt.Match {
			if !m.Match(tool) {
				t.Errorf("matcher %q does not match %q; Claude Code's does", tt.Matcher, tool)
			}
		}
		for _, tool := range tt.Miss {
			if m.Match(tool) {
				t.Errorf("matcher %q matches %q; Claude Code's does not", tt.Matcher, tool)
			}
		}
	}
	if _, err := CompileMatcher("("); err == nil {
		t.Error("matcher ( compiled")
	}
	var zero Matcher
	if !zero.Match("Anything") || !zero.All() {
		t.Error("the zero matcher does not match every tool")
	}
}

func TestMatcherUnmatched(t *testing.T) {
	for _, tt := range []struct{ Matcher, want string }{
		{"Write", ""},
		{"Edit|Write", ""},
		{"write", "no tool name Claude Code knows"},
		{"Edit|Wirte", "Wirte is no tool name"},
		{"mcp__github__create_issue", ""},
		{"rit.", ""},
		{"mcp__github__.*delete", ""},
		{"^write$", "matches no tool"},
		{"Edti.*", "matches no tool"},
		{"*", ""},
	} {
		m, err := CompileMatcher(tt.Matcher)
		if err != nil {
			t.Fatal(err)
		}
		got := m.Unmatched()
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("%q: Unmatched() = %q, want %q", tt.Matcher, got, tt.want)
		}
	}
}
