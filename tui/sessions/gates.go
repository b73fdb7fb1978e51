package sessions

import (
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/text"
)

// Gate marks on a row (the help's legend explains them).
const (
	GateStoppedMark    = "⊘" // denies and blocks enforced
	GateAskedMark      = "?" // asks put to the user
	GateFailedOpenMark = "↷" // gates that failed open (the action went ahead)
)

// gateStats is a row's gate counts, each with a leading space: ⊘N denied or
// blocked, ?N asked the user, ↷N failed open (nothing when none).
func (m *Model) gateStats(g store.GateTally) string {
	st := m.styles
	var s string
	if g.Stopped > 0 {
		s += " " + st.Error.Render(GateStoppedMark+text.Count(int64(g.Stopped)))
	}
	if g.Asked > 0 {
		s += " " + st.NeedsInput.Render(GateAskedMark+text.Count(int64(g.Asked)))
	}
	if g.FailedOpen > 0 {
		s += " " + st.Warn.Render(GateFailedOpenMark+text.Count(int64(g.FailedOpen)))
	}
	return s
}
