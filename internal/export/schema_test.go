package export_test

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/dylan-gluck/spcstr/internal/export"
)

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
)

// validate checks a JSON export against schema.json, which forbids
// undocumented fields: the schema and the output cannot drift apart.
func validate(t *testing.T, doc []byte) {
	t.Helper()
	schemaOnce.Do(func() {
		f, err := os.Open("schema.json")
		if err != nil {
			schemaErr = err
			return
		}
		defer f.Close()
		v, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if schemaErr = c.AddResource("schema.json", v); schemaErr != nil {
			return
		}
		schema, schemaErr = c.Compile("schema.json")
	})
	if schemaErr != nil {
		t.Fatalf("schema.json: %v", schemaErr)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("export is not JSON: %v", err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Errorf("export does not match schema.json: %v", err)
	}
}

// TestSchemaCatchesDrift: the validator rejects an undocumented field and
// a wrong schema name, so the golden tests' validation can fail.
func TestSchemaCatchesDrift(t *testing.T) {
	validate(t, []byte(`{"schema":"`+export.Schema+`","generated_at":"2026-01-01T00:00:00Z","generator":"","sessions":[]}`))
	for _, doc := range []string{
		`{"schema":"` + export.Schema + `","generated_at":"2026-01-01T00:00:00Z","generator":"","sessions":[],"extra":1}`,
		`{"schema":"spcstr.export/v1","generated_at":"2026-01-01T00:00:00Z","generator":"","sessions":[]}`,
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		if schema.Validate(inst) == nil {
			t.Errorf("schema.json accepted %s", doc)
		}
	}
}
