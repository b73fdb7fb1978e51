package logs

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCapPayload: whatever a payload holds, its logged form is one line of
// valid UTF-8 JSON, nested at most MaxLogDepth deep (so jq 1.6 and
// Python's json read it), without \ud800-style escapes, and bounded in
// size by the cap.
func FuzzCapPayload(f *testing.F) {
	f.Add([]byte(`{"tool_input":{"file_path":"a.go","content":"`+strings.Repeat("x", 300)+`"}}`), 100)
	f.Add([]byte(`{"a":"\ud800","b":[`+strings.Repeat("[", 80)+strings.Repeat("]", 80)+`]}`), 100)
	f.Add([]byte("{\"a\":\"b\x00c\",\"d\":[1,2,3]}"), 10)
	f.Add([]byte(`[`+strings.Repeat(`"abcdef",`, 100)+`1]`), 50)
	f.Fuzz(func(t *testing.T, raw []byte, limit int) {
		limit = 16 + int(uint(limit)%4096)
		out, _ := CapPayload(raw, limit)
		if !utf8.Valid(out) || !json.Valid(out) || bytes.IndexByte(out, '\n') >= 0 {
			t.Fatalf("not one line of valid JSON: %q", out)
		}
		if d := depth(out); d > MaxLogDepth+1 {
			t.Fatalf("nested %d deep", d)
		}
		if bytes.Contains(bytes.ToLower(out), []byte(`\ud8`)) || bytes.Contains(bytes.ToLower(out), []byte(`\udc`)) {
			t.Fatalf("surrogate escape kept: %q", out)
		}
		if len(out) > 8*limit+8192 {
			t.Fatalf("%d bytes out of %d in at cap %d", len(out), len(raw), limit)
		}
	})
}

// depth is the deepest nesting of arrays and objects in valid JSON.
func depth(data []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}
