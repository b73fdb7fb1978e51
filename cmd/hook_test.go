package cmd

import "testing"

func TestHookFastPath(t *testing.T) {
	tests := []struct {
		args  []string
		event string
		ok    bool
	}{
		{[]string{"hook"}, "", true},
		{[]string{"hook", "PreToolUse"}, "PreToolUse", true},
		{[]string{"hook", "session_start"}, "session_start", true},
		{[]string{"hook", "--help"}, "", false},
		{[]string{"hook", "-h"}, "", false},
		{[]string{"hook", "a", "b"}, "", false},
		{[]string{"tui"}, "", false},
		{nil, "", false},
	}
	for _, tt := range tests {
		event, ok := hookFastPath(tt.args)
		if event != tt.event || ok != tt.ok {
			t.Errorf("hookFastPath(%q) = %q, %v; want %q, %v", tt.args, event, ok, tt.event, tt.ok)
		}
	}
}
