package feedback

import (
	"time"
)

// Phase statuses.
const (
	NotRun = "NOT_RUN"
	Pass   = "PASS"
	Fail   = "FAIL"
)

// Phases lists the phases in the order each domain must pass them.
var Phases = []string{PhaseReview, PhaseTestPlanning, PhaseTesting}

// SchemaVersion is the version of feedback-loop.json.
const SchemaVersion = 1

// Bounds on what the loop keeps.
const (
	maxHistory     = 200
	maxIssues      = 10
	maxIssueText   = 300
	maxFilesPerDom = 50
)

// Loop is .spcstr/sessions/<id>/feedback-loop.json: the multi-agent feedback
// loop state (active, started_at, iteration, modified_domains,
// domain_phases) plus per-domain consecutive failure counters, escalation,
// bypass and a history of results.
type Loop struct {
	Version int `json:"version"`
	// Active is true from the first tracked change until a Stop finds every
	// phase passed, or until the user's next prompt after an escalation.
	Active      bool       `json:"active"`
	StartedAt   time.Time  `json:"started_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	CompletedAt *time.Time `json:"completed_at,omitempty"`
	// Iteration counts review → test cycles, from 1; TESTS_FAILED adds one.
	Iteration       int                      `json:"iteration"`
	ModifiedDomains []string                 `json:"modified_domains"`
	ModifiedFiles   map[string][]string      `json:"modified_files,omitempty"`
	DomainPhases    map[string]*DomainPhases `json:"domain_phases"`
	// Failures are the consecutive failures per domain and phase; a pass
	// of that phase resets them.
	Failures map[string]*Counters `json:"consecutive_failures"`
	// LastFailure is the most recent FAIL, kept after TESTS_FAILED resets
	// the phases so that the next step can say what failed.
	LastFailure *Result `json:"last_failure,omitempty"`
	// Escalation is set once a limit is reached: Stop is no longer blocked
	// and the user is told why.
	Escalation *Escalation `json:"escalation,omitempty"`
	// Bypass is set when a configured orchestration skill ran this
	// session: it owns the loop, so Stop is not blocked.
	Bypass *Bypass `json:"bypass,omitempty"`
	// TranscriptScanned is how far (bytes) Stop has searched the session's
	// transcript for bypass_pattern; the next Stop reads on from there.
	TranscriptScanned int64 `json:"transcript_scanned,omitempty"`
	// Loops counts the loops started in this session.
	Loops int `json:"loops"`
	// History lists every result and loop event, oldest first (capped).
	History []Result `json:"history"`
	// Agents are the agent ids whose result was taken, so that a
	// foreground agent's SubagentStop and PostToolUse count once.
	Agents []string `json:"seen_agents,omitempty"`
}

// DomainPhases are one domain's phases.
type DomainPhases struct {
	Review       Phase `json:"review"`
	TestPlanning Phase `json:"test_planning"`
	Testing      Phase `json:"testing"`
}

// Get returns the phase named name.
func (d *DomainPhases) Get(name string) *Phase {
	switch name {
	case PhaseReview:
		return &d.Review
	case PhaseTestPlanning:
		return &d.TestPlanning
	case PhaseTesting:
		return &d.Testing
	}
	return nil
}

// Next returns the first phase that has not passed, or "" when all passed.
func (d *DomainPhases) Next() string {
	for _, p := range Phases {
		if d.Get(p).Status != Pass {
			return p
		}
	}
	return ""
}

// Phase is one phase of one domain.
type Phase struct {
	Status  string     `json:"status"`
	Agent   string     `json:"agent,omitempty"`
	AgentID string     `json:"agent_id,omitempty"`
	Marker  string     `json:"marker,omitempty"`
	RanAt   *time.Time `json:"ran_at,omitempty"`
	Issues  []string   `json:"issues,omitempty"`
}

// Running reports whether the phase has no result yet but its agent has
// been spawned (the dashboard shows it as running).
func (p Phase) Running() bool {
	return p.Status != Pass && p.Status != Fail && p.AgentID != "" && p.RanAt == nil
}

// Counters are consecutive failures per phase.
type Counters struct {
	Review       int `json:"review"`
	TestPlanning int `json:"test_planning"`
	Testing      int `json:"testing"`
}

func (c *Counters) get(phase string) *int {
	switch phase {
	case PhaseReview:
		return &c.Review
	case PhaseTestPlanning:
		return &c.TestPlanning
	}
	return &c.Testing
}

// Escalation says why the loop stopped enforcing.
type Escalation struct {
	// Reason is machine-friendly: "max_feedback_iterations",
	// "review_failures:backend", "test_failures:frontend",
	// "planning_failures:backend".
	Reason  string    `json:"reason"`
	Message string    `json:"message"`
	At      time.Time `json:"at"`
	// Reported is set once the user was told (systemMessage).
	Reported bool `json:"reported,omitempty"`
	// StopAllowed is set once a Stop was let through because of it.
	StopAllowed bool `json:"stop_allowed,omitempty"`
}

// Bypass records the orchestration skill that owns the loop.
type Bypass struct {
	Skill string    `json:"skill"`
	At    time.Time `json:"at"`
}

// History kinds.
const (
	KindResult    = "result"     // an agent's result set a phase
	KindIgnored   = "ignored"    // a marker from an agent with no role here
	KindStarted   = "started"    // a change started a loop
	KindDomain    = "domain"     // a change added a domain
	KindStale     = "stale"      // a change after results reset a domain
	KindReset     = "reset"      // TESTS_FAILED reset every phase
	KindEscalated = "escalated"  // a limit was reached
	KindComplete  = "complete"   // every phase passed at a Stop
	KindClosed    = "closed"     // the user's prompt closed an escalated loop
	KindBypass    = "bypass"     // an orchestration skill took over
	KindAgentFail = "agent_fail" // the agent call itself failed
)

// Result is one history entry.
type Result struct {
	At        time.Time `json:"at"`
	Kind      string    `json:"kind"`
	Iteration int       `json:"iteration,omitempty"`
	Domain    string    `json:"domain,omitempty"`
	Phase     string    `json:"phase,omitempty"`
	Agent     string    `json:"agent,omitempty"`
	AgentID   string    `json:"agent_id,omitempty"`
	Marker    string    `json:"marker,omitempty"`
	Status    string    `json:"status,omitempty"`
	Issues    []string  `json:"issues,omitempty"`
	File      string    `json:"file,omitempty"`
	Note      string    `json:"note,omitempty"`
}

// NewLoop returns an empty, inactive loop.
func NewLoop() *Loop {
	l := &Loop{Version: SchemaVersion}
	l.normalize()
	return l
}

func (l *Loop) normalize() {
	if l.Version == 0 {
		l.Version = SchemaVersion
	}
	if l.ModifiedDomains == nil {
		l.ModifiedDomains = []string{}
	}
	if l.DomainPhases == nil {
		l.DomainPhases = map[string]*DomainPhases{}
	}
	if l.Failures == nil {
		l.Failures = map[string]*Counters{}
	}
	if l.History == nil {
		l.History = []Result{}
	}
	for _, d := range l.ModifiedDomains {
		if l.DomainPhases[d] == nil {
			l.DomainPhases[d] = freshPhases()
		}
		if l.Failures[d] == nil {
			l.Failures[d] = &Counters{}
		}
	}
}

func freshPhases() *DomainPhases {
	return &DomainPhases{Review: Phase{Status: NotRun}, TestPlanning: Phase{Status: NotRun}, Testing: Phase{Status: NotRun}}
}

func (l *Loop) log(r Result) {
	if r.Iteration == 0 {
		r.Iteration = l.Iteration
	}
	l.History = append(l.History, r)
	if len(l.History) > maxHistory {
		l.History = l.History[len(l.History)-maxHistory:]
	}
}
