package feedback

import (
	"regexp"
)

// Phases of the feedback loop, in order.
const (
	PhaseReview       = "review"
	PhaseTestPlanning = "test_planning"
	PhaseTesting      = "testing"
)

// Result markers agents print (seed 002, "Agent Result Protocol").
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

var markerPattern = regexp.MustCompile(`\b(REVIEW_APPROVED|REVIEW_REJECTED|TEST_PLAN_READY|TEST_PLAN_BLOCKED|TESTS_PASSED|TESTS_FAILED)\b`)

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
	all := markerPattern.FindAllString(text, -1)
	if len(all) == 0 {
		return Marker{}, false
	}
	return markerInfo[all[len(all)-1]], true
}
