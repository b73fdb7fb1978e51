package hookio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// The reference decoders: encoding/json, as Decode, Input, Response and
// ContentText used it before the member readers replaced it. The readers
// must agree with them on every input.

func refDecode(data []byte) (*Event, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, ErrEmpty
	}
	if data[0] != '{' {
		return nil, ErrNotObject
	}
	if err := checkDepth(data); err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		data = []byte(strings.ToValidUTF8(string(data), "\uFFFD"))
	}
	ev := &Event{Raw: data}
	if err := json.Unmarshal(data, ev); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return nil, fmt.Errorf("malformed JSON: %w", err)
		}
	}
	fixKeys(data, ev)
	return ev, nil
}

func refInput(e *Event) ToolInputFields {
	var in ToolInputFields
	if raw := bytes.TrimSpace(e.ToolInput); len(raw) > 0 && raw[0] == '{' {
		_ = json.Unmarshal(raw, &in)
	}
	return in
}

func refResponse(e *Event) ToolResponse {
	var r ToolResponse
	raw := bytes.TrimSpace(e.ToolResponse)
	if len(raw) == 0 {
		return r
	}
	switch raw[0] {
	case '{':
		_ = json.Unmarshal(raw, &r)
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			r.isString, r.text = true, s
		}
	case '[':
		r.Content = raw
	}
	return r
}

func refContentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return ContentText(raw) // strings were never decoded by the readers
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// compareWithReference fails t when the member readers and encoding/json
// disagree about data.
func compareWithReference(t *testing.T, data []byte) {
	t.Helper()
	got, gerr := Decode(data)
	want, werr := refDecode(data)
	if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
		t.Fatalf("Decode(%q): error %v, encoding/json %v", data, gerr, werr)
	}
	if gerr != nil {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Decode(%q):\n got %+v\nwant %+v", data, got, want)
	}
	gi, wi := got.Input(), refInput(want)
	if duplicated(want.ToolInput, "todos") {
		// encoding/json decodes a repeated array into the elements the
		// first one left; the readers start a new list.
		gi.Todos, wi.Todos = nil, nil
	}
	if !reflect.DeepEqual(gi, wi) {
		t.Fatalf("Input of %q:\n got %+v\nwant %+v", data, gi, wi)
	}
	gr, wr := got.Response(), refResponse(want)
	if duplicated(want.ToolResponse, "task") {
		gr.Task, wr.Task = nil, nil // the same for a repeated object
	}
	if !reflect.DeepEqual(gr, wr) {
		t.Fatalf("Response of %q:\n got %+v\nwant %+v", data, gr, wr)
	}
	if g, w := ContentText(gr.Content), refContentText(wr.Content); g != w {
		t.Fatalf("ContentText of %q: got %q, want %q", gr.Content, g, w)
	}
	if g, w := gr.ErrorText(), wr.ErrorText(); g != w {
		t.Fatalf("ErrorText of %q: got %q, want %q", data, g, w)
	}
}

// duplicated reports whether key (in any case) occurs more than once in raw.
func duplicated(raw []byte, key string) bool {
	return countFold(raw, key) > 1
}

// Table cases for the rules encoding/json follows and the readers copy.
func TestMembersFollowEncodingJSON(t *testing.T) {
	for _, c := range []string{
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"SESSION_ID":"s","Tool_Name":"Bash","tool_name":"Read"}`,               // case variants, later wins
		`{"tool_name":1,"tool_name":"Bash","duration_ms":"12","is_interrupt":1}`, // wrong types are skipped
		`{"duration_ms":1e400,"custom_instructions":null}`,                       // out of range; null pointer
		`{"custom_instructions":"keep","custom_instructions":5}`,                 // a wrong type keeps the pointer
		`{"tool_input":null,"tool_response":null,"tool_calls":[1,{"a":[]}]}`,     // raw fields keep null
		`{"prompt":"\ud83d\ude00 \ud800 \u00e9\n\"q\""}`,                         // escapes, a lone surrogate
		`{"tool_input":{"todos":[{"content":"a","STATUS":"s"},"x",null,{"activeForm":1}],"run_in_background":true,"taskId":"7"}}`,
		`{"tool_input":{"todos":{"content":"a"}}}`,
		`{"tool_input":{"todos":null}}`,
		`{"tool_response":{"task":{"id":"1","subject":"s"},"success":false,"totalTokens":12.5,"totalToolUseCount":3}}`,
		`{"tool_response":{"task":null,"success":null,"content":[{"type":"text","text":"a"},{"text":"b"},{"TEXT":"c"},7]}}`,
		`{"tool_response":{"task":"x","error":"Error: boom","is_error":true}}`,
		`{"tool_response":"Error: plain string"}`,
		`{"tool_response":[{"type":"text","text":"block"}]}`,
		`{"tool_response":{"error":{"code":1},"totalDurationMs":-0.5e3}}`,
		`{"unknown":{"deep":[{"x":{}}]},"model":"m"}`,
		`{"tool_name":"Bash"} trailing`,
		`{"tool_name":"Bash",}`,
		"{\"tool_name\":\"\xff\"}",
	} {
		t.Run(c, func(t *testing.T) { compareWithReference(t, []byte(c)) })
	}
}

// The readers agree with encoding/json on every recorded payload and on
// whatever the fuzzer makes of them.
func FuzzMembersMatchEncodingJSON(f *testing.F) {
	for _, dir := range []string{"testdata/fuzz/FuzzDecode", "../../recorder/testdata/corpus"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err != nil {
				continue
			}
			if strings.HasPrefix(string(data), "go test fuzz v1\n") {
				continue // the fuzz seed files are in Go syntax; FuzzDecode reads them
			}
			f.Add(data)
		}
	}
	f.Add([]byte(`{"tool_input":{"todos":[{"content":"a"}]},"tool_response":{"content":[{"text":"t"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) { compareWithReference(t, data) })
}
