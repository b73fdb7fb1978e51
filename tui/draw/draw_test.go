package draw

import "testing"

func TestEndReason(t *testing.T) {
	tests := map[string]string{
		"clear":             "cleared with /clear",
		"other":             "exited (Claude Code gave no specific reason)",
		"":                  "exited (Claude Code gave no specific reason)",
		"prompt_input_exit": "the user exited at the prompt",
		"something_new":     "something_new",
	}
	for in, want := range tests {
		if got := EndReason(in); got != want {
			t.Errorf("EndReason(%q) = %q, want %q", in, got, want)
		}
	}
}
