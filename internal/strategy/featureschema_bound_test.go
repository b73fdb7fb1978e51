package strategy

import (
	"errors"
	"math"
	"testing"

	"github.com/dylan-gluck/spcstr/state"
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

// Issue 23 row 10: usage of 9.2e18 tokens twice wrapped the session total
// negative, which a budget on the total reads as nothing used.
func TestTokenBudgetTotalSaturates(t *testing.T) {
	s := &tokenBudget{o: tokenBudgetOptions{Measure: MeasureTotal}}
	const big = int64(9_200_000_000_000_000_000)
	if v := s.value(state.Tokens{Input: big, Output: big}); v != math.MaxInt64 {
		t.Errorf("total = %d, want the largest int64", v)
	}
}
