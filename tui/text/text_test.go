package text

import "testing"

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":                     "plain text",
		"two\nlines\tand\ra tab":         "two lines and a tab",
		"\x1b[31mred\x1b[0m":             "red",
		"\x1b]0;retitled\x07title kept":  "title kept",
		"bell\x07 nul\x00 del\x7f":       "bell nul del",
		"c1 \u009b31m csi":               "c1  csi",
		"a\u009b31mred":                  "ared",
		"osc \u009d0;title\u009c kept":   "osc  kept",
		"ünïcödé ✓ stays":                "ünïcödé ✓ stays",
		"\x1bP+q544e\x1b\\after the dcs": "after the dcs",
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}
