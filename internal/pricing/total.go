package pricing

// Total adds session figures up for a sum shown to people (a day's, a
// project's, every project's), remembering whether any of them was an
// estimate or a lower bound, so that the sum is marked the same way.
type Total struct {
	USD float64
	// Any is set once a session with a figure was added.
	Any bool
	// Estimate is set when a figure added was spcstr's estimate; Lower
	// when one had a model without a price (the sum is a lower bound).
	Estimate, Lower bool
}

// Add adds one session's figure; a session with neither a priced part
// nor an unpriced model (no tokens at all) adds nothing.
func (t *Total) Add(e SessionCost) {
	if !e.Known() && len(e.Unpriced) == 0 {
		return
	}
	t.USD += e.USD
	t.Any = true
	t.Estimate = t.Estimate || e.Source == SourceEstimate
	t.Lower = t.Lower || !e.Priced
}

// Merge adds another total in.
func (t *Total) Merge(o Total) {
	t.USD += o.USD
	t.Any = t.Any || o.Any
	t.Estimate = t.Estimate || o.Estimate
	t.Lower = t.Lower || o.Lower
}

// String is the sum as shown: "$1.20", "~$1.20" with an estimate in it,
// "≥$1.20" with an unpriced model in it, "$0" when nothing was added.
func (t Total) String() string {
	if !t.Any {
		return "$0"
	}
	s := Format(t.USD)
	switch {
	case t.Lower:
		return "≥" + s
	case t.Estimate && s[0] == '$':
		return "~" + s
	}
	return s
}
