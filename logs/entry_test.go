package logs

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestCapPayload(t *testing.T) {
	const limit = 100
	bigPrompt := strings.Repeat("p", 500)
	bigObj := `{"stdout":"` + strings.Repeat("o", 300) + `","stderr":""}`
	tests := []struct {
		name      string
		raw       string
		truncated map[string]int
		check     func(t *testing.T, out map[string]any)
	}{
		{name: "small object is compacted", raw: "{\n  \"a\": 1,\n  \"b\": [1, 2]\n}\n",
			check: func(t *testing.T, out map[string]any) {
				if out["a"] != float64(1) {
					t.Errorf("a = %v", out["a"])
				}
			}},
		{name: "big string field is cut and marked", raw: `{"session_id":"s","prompt":"` + bigPrompt + `","n":5}`,
			truncated: map[string]int{"prompt": len(bigPrompt) + 2},
			check: func(t *testing.T, out map[string]any) {
				p := out["prompt"].(string)
				if !strings.HasPrefix(p, strings.Repeat("p", limit)) || !strings.Contains(p, "bytes truncated by spcstr") {
					t.Errorf("prompt = %q", p)
				}
				if out["session_id"] != "s" || out["n"] != float64(5) {
					t.Errorf("other fields changed: %v", out)
				}
			}},
		{name: "big object field keeps its structure, its big leaf cut", raw: `{"tool_response":` + bigObj + `}`,
			truncated: map[string]int{"tool_response.stdout": 302},
			check: func(t *testing.T, out map[string]any) {
				m, ok := out["tool_response"].(map[string]any)
				if !ok || !strings.HasPrefix(m["stdout"].(string), "ooo") || m["stderr"] != "" {
					t.Errorf("tool_response = %v", out["tool_response"])
				}
			}},
		{name: "a Write's file_path survives a big content", raw: `{"tool_input":{"file_path":"/p/a.go","content":"` + bigPrompt + `"},"tool_use_id":"t1"}`,
			truncated: map[string]int{"tool_input.content": 502},
			check: func(t *testing.T, out map[string]any) {
				in := out["tool_input"].(map[string]any)
				if in["file_path"] != "/p/a.go" || out["tool_use_id"] != "t1" {
					t.Errorf("small fields lost: %v", out)
				}
			}},
		{name: "raw control byte in a string is escaped", raw: "{\"a\":\"b\x00c\"}",
			check: func(t *testing.T, out map[string]any) {
				if out["a"] != "b\x00c" {
					t.Errorf("a = %q", out["a"])
				}
			}},
		{name: "lone surrogate replaced", raw: `{"prompt":"a\ud800b","x":"\ud83d\ude00"}`,
			check: func(t *testing.T, out map[string]any) {
				if out["prompt"] != "a\uFFFDb" || out["x"] != "\U0001F600" {
					t.Errorf("out = %q", out)
				}
			}},
		{name: "deep nesting kept as marked text", raw: `{"x":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`,
			truncated: map[string]int{"x" + strings.Repeat("[0]", 63): 14},
			check: func(t *testing.T, out map[string]any) {
				v := out["x"]
				for range 63 {
					v = v.([]any)[0]
				}
				if s, ok := v.(string); !ok || !strings.HasPrefix(s, "[[[") {
					t.Errorf("deepest part = %v", v)
				}
			}},
		{name: "multi-byte text is cut on a rune boundary", raw: `{"prompt":"` + strings.Repeat("日本", 100) + `"}`,
			truncated: map[string]int{"prompt": 602},
			check: func(t *testing.T, out map[string]any) {
				p := out["prompt"].(string)
				if !utf8.ValidString(p) || strings.ContainsRune(p, utf8.RuneError) {
					t.Errorf("prompt cut inside a rune: %q", p)
				}
			}},
		{name: "escapes count at their encoded size", raw: `{"prompt":"` + strings.Repeat(`\u0000`, 30) + `"}`,
			truncated: map[string]int{"prompt": 182}},
		{name: "invalid UTF-8 in a small payload", raw: "{\"prompt\":\"caf\xe9\"}",
			check: func(t *testing.T, out map[string]any) {
				if out["prompt"] != "caf\uFFFD" {
					t.Errorf("prompt = %q", out["prompt"])
				}
			}},
		{name: "invalid UTF-8 in a big payload", raw: "{\"prompt\":\"\xff" + bigPrompt + "\",\"x\":\"\xfe\"}",
			truncated: map[string]int{"prompt": len(bigPrompt) + 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, truncated := CapPayload([]byte(tt.raw), limit)
			if !utf8.Valid(out) || !json.Valid(out) || bytes.IndexByte(out, '\n') >= 0 {
				t.Fatalf("not one line of valid UTF-8 JSON: %q", out)
			}
			if len(truncated) != len(tt.truncated) {
				t.Fatalf("truncated = %v, want %v", truncated, tt.truncated)
			}
			for k, v := range tt.truncated {
				if truncated[k] != v {
					t.Errorf("truncated[%s] = %d, want %d", k, truncated[k], v)
				}
			}
			var m map[string]any
			if err := json.Unmarshal(out, &m); err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, m)
			}
		})
	}
}

// Payloads that are not objects (rejected ones) are kept as JSON too, and
// capped like any field.
func TestCapPayloadNonObjects(t *testing.T) {
	const limit = 100
	tests := []struct {
		name, raw string
		want      string // exact output when short
		cut       bool
	}{
		{name: "empty", raw: "", want: `""`},
		{name: "garbage", raw: "not json", want: `"not json"`},
		{name: "binary", raw: "\x00\xff", want: "\"\\u0000\uFFFD\""},
		{name: "small array", raw: "[1, 2]", want: `[1,2]`},
		{name: "number", raw: " 42 ", want: `42`},
		{name: "big array", raw: "[" + strings.Repeat(`"x",`, 200) + `"x"]`, cut: true},
		{name: "big garbage", raw: strings.Repeat("\xff~", 200), cut: true},
		{name: "big malformed object", raw: `{"prompt":"` + strings.Repeat("a", 300), cut: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, truncated := CapPayload([]byte(tt.raw), limit)
			if !utf8.Valid(out) || !json.Valid(out) {
				t.Fatalf("invalid output %q", out)
			}
			if !tt.cut {
				if string(out) != tt.want || truncated != nil {
					t.Errorf("CapPayload = %s %v, want %s", out, truncated, tt.want)
				}
				return
			}
			if len(out) > 4*limit+100 {
				t.Errorf("output not capped: %d bytes", len(out))
			}
			if tt.raw[0] == '[' {
				if len(truncated) == 0 {
					t.Errorf("cut not marked: %v", truncated)
				}
				return
			}
			if truncated[WholePayload] != len(tt.raw) {
				t.Errorf("truncated = %v, want %q: %d", truncated, WholePayload, len(tt.raw))
			}
		})
	}
}

func TestCapPayloadDefaultLimit(t *testing.T) {
	raw := `{"prompt":"` + strings.Repeat("a", DefaultCap+10) + `"}`
	out, truncated := CapPayload([]byte(raw), 0)
	if truncated["prompt"] != DefaultCap+12 || len(out) > DefaultCap+100 {
		t.Errorf("default cap: %d bytes, truncated %v", len(out), truncated)
	}
	// A 10 MB prompt is capped to about the limit.
	huge := `{"session_id":"s","prompt":"` + strings.Repeat("z", 10<<20) + `"}`
	out, truncated = CapPayload([]byte(huge), DefaultCap)
	if len(out) > DefaultCap+200 || truncated["prompt"] != 10<<20+2 {
		t.Errorf("10 MB prompt: %d bytes, truncated %v", len(out), truncated)
	}
}

func TestEntryEncode(t *testing.T) {
	e := Entry{
		Timestamp: time.Date(2026, 5, 1, 10, 0, 0, 123456789, time.UTC),
		SessionID: "s", Event: "Stop", Input: json.RawMessage(`{"a":1}`),
		Outcome:   &Outcome{DurationMS: 1.5, Answer: json.RawMessage(`{"decision":"block","reason":"r"}`)},
		Truncated: map[string]int{"prompt": 9},
	}
	b, err := e.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"timestamp":"2026-05-01T10:00:00.123456789Z","session_id":"s","event":"Stop","input":{"a":1},"outcome":{"answer":{"decision":"block","reason":"r"},"duration_ms":1.5},"truncated":{"prompt":9}}`
	if string(b) != want {
		t.Errorf("Encode =\n%s\nwant\n%s", b, want)
	}
}
