package strategy

import (
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/jsonschema"
)

// TestDefaultFeatureSchema: the default schema compiles and takes the
// usual feature list, and names what a wrong one lacks.
func TestDefaultFeatureSchema(t *testing.T) {
	s, err := defaultSchema()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ list, want string }{
		{`[]`, ""},
		{`[{"category":"auth","description":"login","steps":["open","type"],"passes":false,"extra":1}]`, ""},
		{`{"features":[]}`, "root: want array, got object"},
		{`[{"description":"a"}]`, `/0: missing properties: ["passes"]`},
		{`[{"description":"a","passes":"no"}]`, "/0/passes: want boolean, got string"},
		{`[{"description":"a","passes":true,"steps":"x"}]`, "/0/steps: want array, got string"},
		{`[{"description":"a","passes":true,"steps":["x",{}]}]`, "/0/steps/1: want string, got object"},
		{`["a"]`, "/0: want object, got string"},
	}
	for _, tt := range tests {
		inst, err := jsonschema.Decode([]byte(tt.list))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(jsonschema.Validate(s, inst), "; "); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.list, got, tt.want)
		}
	}
}

// TestFeatureSchemaTrue: feature_schema: true accepts any list (it is not
// taken for "unset", which means the default schema).
func TestFeatureSchemaTrue(t *testing.T) {
	f, err := parseFeatureSchema(true, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bad, err := f.check(t.TempDir(), []byte(`{"anything":1}`)); bad != "" || err != nil {
		t.Errorf("check = %q, %v", bad, err)
	}
}
