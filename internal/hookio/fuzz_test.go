package hookio

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"
)

// FuzzDecode feeds arbitrary bytes to Decode. Whatever arrives, Decode must
// not panic; it accepts exactly the JSON objects (after trimming), and what
// it accepts is valid UTF-8 JSON whose derived names are safe file names.
// Seeds live in testdata/fuzz/FuzzDecode, so plain `go test` runs them.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"hook_event_name":"PostToolUse","tool_name":"Agent","tool_response":{"status":"async_launched","agentId":"a"}}`,
		`{"tool_response":[{"type":"text","text":"x"}]}`,
		`{"tool_response":"Error: x"}`,
		`[]`, ``, `{`, "\xff{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Decode(data)
		trimmed := bytes.TrimSpace(data)
		isObject := len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed)
		if err != nil {
			if ev != nil {
				t.Fatal("event returned with an error")
			}
			if isObject {
				var probe map[string]any
				if json.Unmarshal(trimmed, &probe) == nil {
					t.Fatalf("valid JSON object rejected: %v", err)
				}
			}
			if len(trimmed) == 0 && !errors.Is(err, ErrEmpty) {
				t.Fatalf("empty input: %v", err)
			}
			return
		}
		if !isObject && utf8.Valid(trimmed) {
			t.Fatalf("accepted something that is not a JSON object: %q", data)
		}
		if !utf8.Valid(ev.Raw) || !json.Valid(ev.Raw) {
			t.Fatalf("Raw is not valid UTF-8 JSON: %q", ev.Raw)
		}
		if n := ev.Name(""); n != "" && SnakeName(n) == "" {
			t.Fatalf("event name %q has no safe log name", n)
		}
		// Derived views never panic.
		_ = ev.Input()
		r := ev.Response()
		_, _, _ = r.Text(), r.ErrorText(), r.Background()
	})
}
