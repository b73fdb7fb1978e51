package requirements

import "strings"

// Suggest returns the candidate closest to name (edit distance, ignoring
// case and the -/_ difference), or "" when none is close enough to be a
// likely typo.
func Suggest(name string, candidates []string) string {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }
	n := norm(name)
	best, bestD := "", -1
	for _, c := range candidates {
		d := distance(n, norm(c))
		if strings.Contains(norm(c), n) || strings.Contains(n, norm(c)) {
			d = min(d, 2)
		}
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	limit := max(2, len([]rune(name))/3)
	if bestD < 0 || bestD > limit {
		return ""
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
