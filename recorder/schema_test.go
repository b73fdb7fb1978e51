package recorder

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	stateSchemaOnce sync.Once
	stateSchema     *jsonschema.Schema
	stateSchemaErr  error
)

// validateState checks a state.json the recorder wrote against
// state/schema.json, which forbids undocumented fields: the contract and
// the files cannot drift apart.
func validateState(t *testing.T, data []byte) {
	t.Helper()
	stateSchemaOnce.Do(func() {
		f, err := os.Open(filepath.Join("..", "state", "schema.json"))
		if err != nil {
			stateSchemaErr = err
			return
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			stateSchemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if stateSchemaErr = c.AddResource("schema.json", doc); stateSchemaErr != nil {
			return
		}
		stateSchema, stateSchemaErr = c.Compile("schema.json")
	})
	if stateSchemaErr != nil {
		t.Fatalf("state/schema.json: %v", stateSchemaErr)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("state.json is not JSON: %v", err)
	}
	if err := stateSchema.Validate(inst); err != nil {
		t.Errorf("state.json does not match state/schema.json: %v", err)
	}
}

// TestStateSchema: every state.json recorded from the Claude Code captures
// and from a long session matches the schema, and the schema rejects what
// it must (an unknown field, a wrong type).
func TestStateSchema(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "captures", "*.jsonl"))
	if len(paths) == 0 {
		t.Fatal("no captures")
	}
	var sample []byte
	for _, path := range paths {
		p, _ := feed(t, readCaptures(t, path), func(string) {})
		ids, err := p.layout().SessionIDs()
		if err != nil || len(ids) == 0 {
			t.Fatalf("%s: sessions %v %v", path, ids, err)
		}
		for _, id := range ids {
			sp, _ := p.layout().StatePath(id)
			data, err := os.ReadFile(sp)
			if err != nil {
				t.Fatal(err)
			}
			validateState(t, data)
			sample = data
		}
	}
	long := newProject(t)
	var payloads []string
	for i := 0; i < 150; i++ {
		payloads = append(payloads,
			`{"hook_event_name":"UserPromptSubmit","session_id":"long","prompt":"`+strings.Repeat("p", 3000)+`"}`,
			`{"hook_event_name":"PostToolUseFailure","session_id":"long","tool_name":"Bash","tool_use_id":"t`+strings.Repeat("x", i%7)+`","error":"`+strings.Repeat("e", 2000)+`"}`)
	}
	long.runAll(payloads...)
	sp, _ := long.layout().StatePath("long")
	data, err := os.ReadFile(sp)
	if err != nil {
		t.Fatal(err)
	}
	validateState(t, data)

	inst := func(s string) any {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// A fork's fields (written only for a fork, which no capture here is).
	fork := strings.Replace(string(sample), `"version":`, `"forked_from":"parent-1","inherited":{"claude-opus-5-5":{"input":1,"output":2,"cache_read":3,"cache_creation":4,"cache_write_1h":1}},"version":`, 1)
	if err := stateSchema.Validate(inst(fork)); err != nil {
		t.Errorf("a fork's state does not match the schema: %v", err)
	}
	for name, bad := range map[string]string{
		"unknown field": strings.Replace(string(sample), `"version":`, `"surprise":1,"version":`, 1),
		"wrong type":    regexp.MustCompile(`"compactions":\d+`).ReplaceAllString(string(sample), `"compactions":"many"`),
	} {
		if stateSchema.Validate(inst(bad)) == nil {
			t.Errorf("the schema accepted a state with an %s", name)
		}
	}
}
