package satmath

import (
	"math"
	"testing"
)

func TestAdd(t *testing.T) {
	const big = int64(9_200_000_000_000_000_000)
	tests := []struct {
		a, b, want int64
	}{
		{1, 2, 3},
		{big, big, math.MaxInt64},
		{math.MaxInt64, 1, math.MaxInt64},
		{-big, -big, math.MinInt64},
		{math.MaxInt64, math.MinInt64, -1},
		{-5, 3, -2},
	}
	for _, tt := range tests {
		if got := Add(tt.a, tt.b); got != tt.want {
			t.Errorf("Add(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	if got := Sum(big, big, -1); got != math.MaxInt64-1 {
		t.Errorf("Sum = %d", got)
	}
	if got := Add(math.MaxInt, 1); got != math.MaxInt {
		t.Errorf("Add int = %d", got)
	}
	if got := Sub(int64(0), math.MinInt64); got != math.MaxInt64 {
		t.Errorf("Sub(0, min) = %d", got)
	}
	if got := Sub(big, -big); got != math.MaxInt64 {
		t.Errorf("Sub = %d", got)
	}
}
