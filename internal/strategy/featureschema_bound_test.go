package strategy

import (
	"errors"
	"testing"
)

// jsonable counts what it visits: a decoded value that shares its parts
// (what YAML aliases decode to) is not expanded past the bound.
func TestJsonableBounded(t *testing.T) {
	var v any = []any{"x", "x", "x", "x", "x", "x", "x", "x", "x", "x"}
	for range 9 {
		level := make([]any, 10)
		for i := range level {
			level[i] = v
		}
		v = level
	}
	if _, err := jsonable(map[string]any{"s": v}); !errors.Is(err, errTooManyNodes) {
		t.Fatalf("10^10 shared values walked: err %v", err)
	}
	got, err := jsonable(map[any]any{"type": "array", 1: []any{"a"}})
	if err != nil || got.(map[string]any)["1"] == nil {
		t.Fatalf("small value: %v %v", got, err)
	}
}
