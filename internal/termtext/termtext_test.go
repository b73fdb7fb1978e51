package termtext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// Payloads is the hostile set every human-facing output is tested with:
// OSC 0/2 (window title), OSC 52 (clipboard write), CSI (screen control),
// their 8-bit C1 forms (raw bytes and UTF-8), BEL, BS, CR.
var Payloads = map[string]string{
	"osc0":         "\x1b]0;pwned-title\x07",
	"osc2":         "\x1b]2;pwned-title\x1b\\",
	"osc52":        "\x1b]52;c;cm0gLXJmIC8K\x07",
	"csi":          "\x1b[2J\x1b[1;1H\x1b[31m",
	"c1csi":        "\u009b2J",
	"c1osc":        "\u009d0;pwned-title\u009c",
	"rawc1csi":     "\x9b2J",
	"rawc1osc":     "\x9d52;c;cm0K\x07",
	"bel":          "\x07",
	"bs":           "abc\x08\x08\x08xyz",
	"cr":           "visible\rhidden",
	"dcs":          "\x1bP1$r\x1b\\",
	"unterminated": "\x1b]52;c;",
}

// dangerous reports the first terminal control left in s, if any.
func dangerous(s string) (string, bool) {
	for _, r := range s {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return string(r), true
		}
	}
	if !utf8.ValidString(s) {
		return "invalid UTF-8 (raw 8-bit C1 bytes)", true
	}
	return "", false
}

func TestStripPayloads(t *testing.T) {
	for name, p := range Payloads {
		in := "before " + p + " after\nnext line"
		got := Strip(in)
		if c, bad := dangerous(got); bad {
			t.Errorf("%s: control %q left in %q", name, c, got)
		}
		if !strings.HasPrefix(got, "before ") || !strings.Contains(got, "\nnext line") {
			t.Errorf("%s: text around the payload lost: %q", name, got)
		}
		if strings.Contains(got, "pwned-title") || strings.Contains(got, "cm0gLXJmIC8K") {
			t.Errorf("%s: sequence body left: %q", name, got)
		}
	}
	if got := Strip("plain ünïcode\ttab\n✅"); got != "plain ünïcode\ttab\n✅" {
		t.Errorf("plain text changed: %q", got)
	}
	if got := Line("a\nb\tc\x1b[31m"); got != "a b c" {
		t.Errorf("Line = %q", got)
	}
}

// Sequences split across writes are still removed.
func TestWriterSplit(t *testing.T) {
	for name, p := range Payloads {
		in := "x" + p + "y"
		for cut := 0; cut <= len(in); cut++ {
			var b bytes.Buffer
			w := NewWriter(&b)
			_, _ = w.Write([]byte(in[:cut]))
			_, _ = w.Write([]byte(in[cut:]))
			_ = w.Flush()
			if want := Strip(in); b.String() != want {
				t.Errorf("%s cut %d: %q, want %q", name, cut, b.String(), want)
			}
		}
	}
}

func TestEscapeJSON(t *testing.T) {
	for name, p := range Payloads {
		data, _ := json.Marshal(map[string]string{"k": p + "\u0085"})
		got := EscapeJSON(data)
		if c, bad := dangerous(string(got)); bad {
			t.Errorf("%s: control %q left in %q", name, c, got)
		}
		var a, b map[string]string
		_ = json.Unmarshal(data, &a)
		if err := json.Unmarshal(got, &b); err != nil || a["k"] != b["k"] {
			t.Errorf("%s: value changed: %q → %q (%v)", name, a["k"], b["k"], err)
		}
	}
}
