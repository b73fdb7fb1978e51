package sessions

import (
	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/tui/draw"
	"github.com/dylan-gluck/spcstr/tui/text"
)

// stats is a row's counts and cost, with a leading space.
func (m *Model) stats(r Row) string {
	st := m.styles
	stats := " " + text.Count(int64(r.ToolCalls)) + "t" + m.gateStats(r.Gates)
	if r.Errors > 0 {
		stats += " " + st.Error.Render(text.Count(int64(r.Errors))+"e")
	}
	if r.AgentsRunning > 0 {
		stats += " " + st.Working.Render(text.Count(int64(r.AgentsRunning))+"a")
	}
	if r.ContextPct > 0 {
		stats += " " + draw.CtxStyle(st, r.ContextPct)(text.Count(int64(r.ContextPct+0.5))+"%")
	}
	if m.prices != nil {
		if usd := pricing.RowFigure(m.prices.Session(r.CostState())); usd != "" {
			stats += " " + st.Subtle.Render(usd)
		}
	}
	return stats
}

// idPart is the start of a row's second line: the short id and the branch.
func (m *Model) idPart(r Row) string {
	st := m.styles
	id := "  " + st.Subtle.Render(text.ShortID(r.ID))
	if r.Branch != "" {
		id += " " + st.Info.Render(r.Branch)
	}
	return id
}
