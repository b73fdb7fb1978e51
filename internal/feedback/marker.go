package feedback

import (
	"strings"

	"github.com/dylan-gluck/spcstr/internal/termtext"
)

// Phases of the feedback loop, in order.
const (
	PhaseReview       = "review"
	PhaseTestPlanning = "test_planning"
	PhaseTesting      = "testing"
)

// Result markers agents print (the agent result protocol, docs/feedback-and-strategies.md).
const (
	MarkerReviewApproved  = "REVIEW_APPROVED"
	MarkerReviewRejected  = "REVIEW_REJECTED"
	MarkerTestPlanReady   = "TEST_PLAN_READY"
	MarkerTestPlanBlocked = "TEST_PLAN_BLOCKED"
	MarkerTestsPassed     = "TESTS_PASSED"
	MarkerTestsFailed     = "TESTS_FAILED"
)

// Marker is a result marker found in an agent's output.
type Marker struct {
	// Name is the marker itself ("REVIEW_APPROVED").
	Name string
	// Phase is the phase it reports on.
	Phase string
	// Pass is true for the approving markers.
	Pass bool
}

// Result returns "PASS" or "FAIL".
func (m Marker) Result() string {
	if m.Pass {
		return "PASS"
	}
	return "FAIL"
}

var markerInfo = map[string]Marker{
	MarkerReviewApproved:  {MarkerReviewApproved, PhaseReview, true},
	MarkerReviewRejected:  {MarkerReviewRejected, PhaseReview, false},
	MarkerTestPlanReady:   {MarkerTestPlanReady, PhaseTestPlanning, true},
	MarkerTestPlanBlocked: {MarkerTestPlanBlocked, PhaseTestPlanning, false},
	MarkerTestsPassed:     {MarkerTestsPassed, PhaseTesting, true},
	MarkerTestsFailed:     {MarkerTestsFailed, PhaseTesting, false},
}

// ParseMarker finds the result marker in an agent's output. When several
// appear (an agent quoting the protocol, say), the last one wins: it is the
// agent's conclusion. ok is false when there is none.
func ParseMarker(text string) (m Marker, ok bool) {
	m, _, ok = lastMarker(text)
	return m, ok
}

// lastMarker finds the last result marker in text and the offset just after
// it.
func lastMarker(text string) (m Marker, end int, ok bool) {
	best := -1
	for name, info := range markerInfo {
		for from := len(text); from > best; {
			i := strings.LastIndex(text[:from], name)
			if i < 0 {
				break
			}
			if i > best && isWordBoundary(text, i, i+len(name)) {
				best, m, end, ok = i, info, i+len(name), true
				break
			}
			from = i
		}
	}
	return m, end, ok
}

// isWordBoundary reports whether text[start:end] stands alone as a word, as
// regexp's \b would see it.
func isWordBoundary(text string, start, end int) bool {
	return (start == 0 || !isWordByte(text[start-1])) && (end == len(text) || !isWordByte(text[end]))
}

func isWordByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// Issues extracts the list items that follow the last result marker in an
// agent's output ("- issue", "* issue", "1. issue"), as the agent result
// protocol writes them, capped in number and length.
func Issues(text string) []string {
	_, end, ok := lastMarker(text)
	if !ok {
		return nil
	}
	var out []string
	for _, line := range strings.Split(text[end:], "\n") {
		t := strings.TrimSpace(line)
		item := ""
		switch {
		case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "):
			item = t[2:]
		default:
			if i := strings.Index(t, ". "); i > 0 && i <= 3 && isDigits(t[:i]) {
				item = t[i+2:]
			}
		}
		item = strings.TrimSpace(item)
		if item == "" || strings.HasPrefix(item, "[") && strings.HasSuffix(item, "]") {
			continue // empty, or the protocol's own placeholder
		}
		out = append(out, clip(item))
		if len(out) == maxIssues {
			break
		}
	}
	return out
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxIssueText {
		return s
	}
	return termtext.Cut(s, maxIssueText) + "…"
}
