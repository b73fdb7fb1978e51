package feedback

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/state"
)

// Loop states for the dashboard.
const (
	StateActive    = "active"    // enforcing: Stop blocks until every phase passed
	StateEscalated = "escalated" // a limit was reached; the user decides
	StateBypassed  = "bypassed"  // an orchestration skill owns the loop
	StateComplete  = "complete"  // every phase passed
	StateIdle      = "idle"      // closed after an escalation, or never started
)

// Status is a session's feedback loop as the dashboard shows it: domains ×
// phases, iteration i/max, and why it is not enforcing when it is not.
type Status struct {
	// State is one of the State constants.
	State         string
	Iteration     int
	MaxIterations int
	Domains       []DomainStatus
	Escalation    *Escalation
	Bypass        *Bypass
	LastFailure   *Result
	Limits        Limits
	// Loop is the whole document (history included), for the export.
	Loop *Loop
}

// DomainStatus is one row of the pane.
type DomainStatus struct {
	Name string
	// Phases are review, test_planning, testing, in that order.
	Phases []PhaseStatus
	// Next is the first phase not passed ("" when all passed).
	Next string
	// Failures are the consecutive failures per phase, with their limits.
	Failures, MaxFailures Counters
	Files                 []string
}

// PhaseStatus is one cell of the pane.
type PhaseStatus struct {
	Name string
	Phase
}

// Load reads a session's feedback loop for the dashboard and the export:
// .spcstr/sessions/<id>/feedback-loop.json, plus the limits (from the
// `feedback.limits_file` of .spcstr/config.yaml, default
// .claude/config/orchestration-limits.yaml). It never writes or locks: the
// recorder replaces the file atomically. It returns (nil, nil) when the
// session has no loop, and an error for an invalid session id or a file
// that does not parse (which is left in place for the recorder to set
// aside).
func Load(layout state.Layout, sessionID string) (*Status, error) {
	p, err := layout.FeedbackPath(sessionID)
	if err != nil {
		return nil, err
	}
	data, err := safefs.ReadFile(p, safefs.MaxStateBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	l := NewLoop()
	if err := json.Unmarshal(data, l); err != nil {
		return nil, fmt.Errorf("parse %s: %w", p, err)
	}
	l.normalize()
	limitsFile := DefaultLimitsFile
	if cfg, err := config.Load(layout.ConfigPath()); err == nil {
		if c, err := LoadConfig(cfg); err == nil {
			limitsFile = c.LimitsFile
		}
	}
	lim, _ := LoadLimits(layout.Root, limitsFile)
	return NewStatus(l, lim), nil
}

// NewStatus summarizes a loop under the given limits.
func NewStatus(l *Loop, lim Limits) *Status {
	st := &Status{
		Iteration: l.Iteration, MaxIterations: lim.MaxFeedbackIterations,
		Escalation: l.Escalation, Bypass: l.Bypass, LastFailure: l.LastFailure,
		Limits: lim, Loop: l,
	}
	switch {
	case l.Active && l.Escalation != nil:
		st.State = StateEscalated
	case l.Active && l.Bypass != nil:
		st.State = StateBypassed
	case l.Active:
		st.State = StateActive
	case l.CompletedAt != nil:
		st.State = StateComplete
	default:
		st.State = StateIdle
	}
	for _, d := range l.ModifiedDomains {
		ph := l.DomainPhases[d]
		ds := DomainStatus{Name: d, Next: ph.Next(), Files: l.ModifiedFiles[d]}
		for _, p := range Phases {
			ds.Phases = append(ds.Phases, PhaseStatus{Name: p, Phase: *ph.Get(p)})
		}
		if f := l.Failures[d]; f != nil {
			ds.Failures = *f
		}
		ds.MaxFailures = Counters{
			Review:       lim.MaxFailures(d, PhaseReview),
			TestPlanning: lim.MaxFailures(d, PhaseTestPlanning),
			Testing:      lim.MaxFailures(d, PhaseTesting),
		}
		st.Domains = append(st.Domains, ds)
	}
	return st
}

// Row is one domain's row of the loop's phase table: its three phases by
// name. Load and Table are the loop's one read model: the export and the
// dashboard's Loop pane read the table through them, as both read
// requirements through requirements.ReadSession.
type Row struct {
	Name                          string
	Files                         []string
	Review, TestPlanning, Testing Phase
}

// Table is the loop's phase table: one row per domain the session changed,
// in the order the loop met them.
func (s *Status) Table() []Row {
	rows := make([]Row, 0, len(s.Domains))
	for _, d := range s.Domains {
		r := Row{Name: d.Name, Files: d.Files}
		for _, ph := range d.Phases {
			switch ph.Name {
			case PhaseReview:
				r.Review = ph.Phase
			case PhaseTestPlanning:
				r.TestPlanning = ph.Phase
			case PhaseTesting:
				r.Testing = ph.Phase
			}
		}
		rows = append(rows, r)
	}
	return rows
}
