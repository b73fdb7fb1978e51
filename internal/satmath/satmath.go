// Package satmath is arithmetic on untrusted numbers (token counts from a
// transcript, counts and sizes from a state file or a payload) that
// saturates instead of wrapping: 9.2e18 tokens twice is the largest int64,
// never a negative total that a budget gate would read as "nothing used".
package satmath

import "math"

// Int is the integer kinds spcstr counts in.
type Int interface {
	~int | ~int64
}

// Add returns a+b, clamped to the type's range.
func Add[T Int](a, b T) T {
	s := a + b
	switch {
	case b > 0 && s < a:
		return maxOf[T]()
	case b < 0 && s > a:
		return minOf[T]()
	}
	return s
}

// Sum adds vs with Add.
func Sum[T Int](vs ...T) T {
	var s T
	for _, v := range vs {
		s = Add(s, v)
	}
	return s
}

// Sub returns a-b, clamped to the type's range.
func Sub[T Int](a, b T) T {
	if b == minOf[T]() {
		if a >= 0 {
			return maxOf[T]()
		}
		return a - b
	}
	return Add(a, -b)
}

func maxOf[T Int]() T {
	var hi int64 = math.MaxInt64
	if size[T]() == 4 {
		hi = math.MaxInt32
	}
	return T(hi)
}

func minOf[T Int]() T {
	var lo int64 = math.MinInt64
	if size[T]() == 4 {
		lo = math.MinInt32
	}
	return T(lo)
}

// size is the width of T in bytes: a 32-bit int wraps 1<<62 to 0.
func size[T Int]() int {
	var v int64 = 1 << 62
	if int64(T(v)) == v {
		return 8
	}
	return 4
}
