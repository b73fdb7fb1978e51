package feedback

import "fmt"

// KindOutOfOrder marks a passing result for a phase whose earlier phases
// had not passed: passes count only in order (review, test planning,
// testing), so TESTS_PASSED before the review passed completes nothing. A
// failure counts wherever it comes: it never completes anything.
const KindOutOfOrder = "out_of_order"

// pending returns the first phase before phase that has not passed, or ""
// when phase is next (or later phases are being repeated).
func (d *DomainPhases) pending(phase string) string {
	for _, p := range Phases {
		if p == phase {
			return ""
		}
		if d.Get(p).Status != Pass {
			return p
		}
	}
	return ""
}

// outOfOrder logs a result that arrived before its domain's earlier phases
// passed, and reports whether it did (then it is not counted).
func (l *Loop) outOfOrder(domain, phase string, r Result) bool {
	early := l.DomainPhases[domain].pending(phase)
	if early == "" {
		return false
	}
	what := r.Marker
	if what == "" {
		what = "the " + phaseLabel(phase) + " result"
	}
	r.Kind, r.Domain, r.Phase = KindOutOfOrder, domain, phase
	r.Note = fmt.Sprintf("%s came before %s of %s passed: not counted (phases count only in order)", what, phaseLabel(early), domain)
	l.log(r)
	return true
}
