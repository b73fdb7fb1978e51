package strategy

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/jsonschema"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/internal/yamlsafe"
)

// defaultFeatureSchema is the shape long-running expects of the feature
// list when feature_schema is not set: an array of objects with a string
// description and a boolean passes (category and steps optional).
const defaultFeatureSchema = `{
  "type": "array",
  "items": {
    "type": "object",
    "required": ["description", "passes"],
    "properties": {
      "category": {"type": "string"},
      "description": {"type": "string"},
      "steps": {"type": "array", "items": {"type": "string"}},
      "passes": {"type": "boolean"}
    }
  }
}`

// featureSchema is long-running's feature_schema: a JSON Schema the
// feature list must satisfy, written inline in config.yaml or as the path
// of a schema file inside the project (read when a check needs it, so a
// broken file is reported then and the strategy keeps running).
type featureSchema struct {
	compiled *jsonschema.Schema // inline; nil with no file: the default
	file     string             // a schema file, relative to the project
}

// defaultSchema is compiled on first use: most hook calls never check the
// feature list.
var defaultSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	return jsonschema.Compile([]byte(defaultFeatureSchema))
})

// parseFeatureSchema reads the feature_schema option (v as decoded from
// YAML; key and n its key and value nodes, for errors). nil gives the
// default schema.
func parseFeatureSchema(v any, key, n ast.Node) (*featureSchema, error) {
	switch s := v.(type) {
	case nil:
		return &featureSchema{}, nil
	case string:
		if _, ok := inside("/", s); !ok {
			return nil, config.NodeError(n, fmt.Errorf("feature_schema %q: want a schema (a mapping) or a file inside the project", s))
		}
		return &featureSchema{file: s}, nil
	default:
		v, err := jsonable(s)
		if err != nil {
			return nil, config.NodeError(key, fmt.Errorf("feature_schema: %w", err))
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, config.NodeError(key, fmt.Errorf("feature_schema: %w", err))
		}
		r, err := jsonschema.Compile(raw)
		if err != nil {
			return nil, config.NodeError(key, fmt.Errorf("feature_schema: %w", err))
		}
		return &featureSchema{compiled: r}, nil
	}
}

// jsonable turns what the YAML decoder gives (maps with any keys) into
// values encoding/json takes. It counts what it visits and gives up past
// yamlsafe.MaxNodes (a document is refused before if its aliases expand
// further, so this is the walk's own guard, not the first one).
func jsonable(v any) (any, error) {
	n := 0
	return jsonableN(v, &n)
}

var errTooManyNodes = fmt.Errorf("more than %d values", yamlsafe.MaxNodes)

func jsonableN(v any, n *int) (any, error) {
	if *n++; *n > yamlsafe.MaxNodes {
		return nil, errTooManyNodes
	}
	var err error
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if out[k], err = jsonableN(e, n); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			key, err := jsonableN(k, n)
			if err != nil {
				return nil, err
			}
			if out[fmt.Sprint(key)], err = jsonableN(e, n); err != nil {
				return nil, err
			}
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			if out[i], err = jsonableN(e, n); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
}

// errSchemaFile marks a feature_schema file that cannot be used: a
// problem of the configuration, not of the feature list.
var errSchemaFile = errors.New("feature_schema file")

// check validates a feature list (its JSON text) against the schema; root
// is the project (for a schema file). It returns the violation, or an
// error wrapping errSchemaFile when the schema file cannot be used.
func (f *featureSchema) check(root string, data []byte) (violation string, err error) {
	r := f.compiled
	if r == nil && f.file == "" {
		if r, err = defaultSchema(); err != nil {
			return "", err
		}
	}
	if f.file != "" {
		raw, err := safefs.ReadFileInProject(root, f.file, safefs.MaxConfigBytes)
		if err != nil {
			return "", fmt.Errorf("%w %s: %v", errSchemaFile, f.file, err)
		}
		if r, err = jsonschema.Compile(raw); err != nil {
			return "", fmt.Errorf("%w %s: %v", errSchemaFile, f.file, err)
		}
	}
	inst, err := jsonschema.Decode(data)
	if err != nil {
		return "it is not JSON (" + err.Error() + ")", nil
	}
	if bad := jsonschema.Validate(r, inst); bad != nil {
		return "it does not satisfy the feature schema (" + strings.Join(bad, "; ") + ")", nil
	}
	return "", nil
}
