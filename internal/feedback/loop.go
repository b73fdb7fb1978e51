package feedback

import (
	"fmt"
	"slices"
	"strings"
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

// Loop is .spcstr/sessions/<id>/feedback-loop.json: seed 002's feedback
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

// Track notes a change to file in domain. It starts a loop when none is
// active, adds the domain to an active one, and resets a domain whose
// phases already had results (they reviewed and tested older code). It
// reports whether anything changed.
func (l *Loop) Track(domain, file string, now time.Time) bool {
	l.normalize()
	if !l.Active {
		l.Active = true
		l.StartedAt, l.CompletedAt = now, nil
		l.Iteration = 1
		l.ModifiedDomains = []string{}
		l.ModifiedFiles = nil
		l.DomainPhases = map[string]*DomainPhases{}
		l.Failures = map[string]*Counters{}
		l.LastFailure, l.Escalation = nil, nil
		l.Agents = nil
		l.Loops++
		l.log(Result{At: now, Kind: KindStarted, Domain: domain, File: file})
	}
	l.UpdatedAt = now
	changed := l.addFile(domain, file)
	if !slices.Contains(l.ModifiedDomains, domain) {
		l.ModifiedDomains = append(l.ModifiedDomains, domain)
		l.DomainPhases[domain] = freshPhases()
		l.Failures[domain] = &Counters{}
		if len(l.ModifiedDomains) > 1 {
			l.log(Result{At: now, Kind: KindDomain, Domain: domain, File: file})
		}
		return true
	}
	if l.Escalation != nil {
		return changed
	}
	d := l.DomainPhases[domain]
	for _, p := range Phases {
		if d.Get(p).Status != NotRun {
			l.DomainPhases[domain] = freshPhases()
			l.log(Result{At: now, Kind: KindStale, Domain: domain, File: file,
				Note: "changed after results: review, test planning and testing run again"})
			return true
		}
	}
	return changed
}

func (l *Loop) addFile(domain, file string) bool {
	if file == "" {
		return false
	}
	if l.ModifiedFiles == nil {
		l.ModifiedFiles = map[string][]string{}
	}
	fs := l.ModifiedFiles[domain]
	if slices.Contains(fs, file) || len(fs) >= maxFilesPerDom {
		return false
	}
	l.ModifiedFiles[domain] = append(fs, file)
	return true
}

// AgentResult is what an agent returned.
type AgentResult struct {
	// Agent is the agent's type (subagent_type / agent_type).
	Agent   string
	AgentID string
	// Text is the agent's final output.
	Text string
	// Error is set when the agent call itself failed.
	Error string
}

// Outcome is what Apply did.
type Outcome struct {
	// Applied lists the phase results set.
	Applied []Result
	// Reset is true when TESTS_FAILED reset every phase.
	Reset bool
	// Escalated is set when this result reached a limit.
	Escalated *Escalation
	// Ignored is true when the agent printed a marker but has no role in
	// this loop's domains.
	Ignored bool
}

// Apply takes an agent's result into the loop: it finds the domains in
// this loop where the agent holds the phase's role (a test lead counts for
// every domain whose test lead it is), sets the phase to PASS or FAIL (no
// marker is a FAIL that says so), keeps the per-domain consecutive failure
// counters, and on TESTS_FAILED resets every phase of every domain and
// counts an iteration. Then it checks the limits.
func (l *Loop) Apply(c *Config, lim Limits, r AgentResult, now time.Time) Outcome {
	var out Outcome
	l.normalize()
	if !l.Active || l.Escalation != nil || r.Agent == "" {
		return out
	}
	if r.AgentID != "" {
		if slices.Contains(l.Agents, r.AgentID) {
			return out
		}
	}
	// Which phases of which domains this agent serves.
	roles := map[string][]string{} // phase → domains
	for _, d := range l.ModifiedDomains {
		for _, p := range Phases {
			if c.Role(d, p).Has(r.Agent) {
				roles[p] = append(roles[p], d)
			}
		}
	}
	marker, found := ParseMarker(r.Text)
	if len(roles) == 0 {
		if found {
			out.Ignored = true
			l.log(Result{At: now, Kind: KindIgnored, Agent: r.Agent, AgentID: r.AgentID, Marker: marker.Name,
				Note: "agent is not a configured reviewer, test lead or tester of " + strings.Join(l.ModifiedDomains, ", ")})
			l.UpdatedAt = now
		}
		return out
	}
	if r.AgentID != "" {
		l.Agents = append(l.Agents, r.AgentID)
	}
	l.UpdatedAt = now
	type target struct {
		phase   string
		pass    bool
		marker  string
		issues  []string
		domains []string
	}
	var targets []target
	switch {
	case r.Error != "":
		for _, p := range Phases {
			if ds := roles[p]; len(ds) > 0 {
				targets = append(targets, target{phase: p, domains: ds,
					issues: []string{"the agent call failed: " + clip(r.Error)}})
			}
		}
	case found && len(roles[marker.Phase]) > 0:
		targets = append(targets, target{phase: marker.Phase, pass: marker.Pass, marker: marker.Name,
			domains: roles[marker.Phase], issues: Issues(r.Text)})
	default:
		for _, p := range Phases {
			if ds := roles[p]; len(ds) > 0 {
				msg := fmt.Sprintf("no result marker in the agent's output (expected %s); a missing marker counts as FAIL", expected(p))
				if found {
					msg = fmt.Sprintf("wrong result marker %s for %s (expected %s); counted as FAIL", marker.Name, phaseLabel(p), expected(p))
				}
				targets = append(targets, target{phase: p, domains: ds, issues: []string{msg}})
			}
		}
	}
	testsFailed := false
	for _, t := range targets {
		status := Fail
		if t.pass {
			status = Pass
		}
		counted := false
		for _, d := range t.domains {
			if t.pass && l.outOfOrder(d, t.phase, Result{At: now, Agent: r.Agent, AgentID: r.AgentID, Marker: t.marker, Status: status}) {
				continue
			}
			counted = true
			ph := l.DomainPhases[d].Get(t.phase)
			at := now
			*ph = Phase{Status: status, Agent: r.Agent, AgentID: r.AgentID, Marker: t.marker, RanAt: &at, Issues: t.issues}
			cnt := l.Failures[d].get(t.phase)
			if t.pass {
				*cnt = 0
			} else {
				*cnt++
			}
			res := Result{At: now, Kind: KindResult, Domain: d, Phase: t.phase, Agent: r.Agent, AgentID: r.AgentID,
				Marker: t.marker, Status: status, Issues: t.issues}
			if r.Error != "" {
				res.Kind = KindAgentFail
			}
			l.log(res)
			out.Applied = append(out.Applied, res)
			if !t.pass {
				last := res
				l.LastFailure = &last
			}
		}
		if t.marker == MarkerTestsFailed && counted {
			testsFailed = true
		}
	}
	if testsFailed {
		out.Reset = true
		l.Iteration++
		for _, d := range l.ModifiedDomains {
			l.DomainPhases[d] = freshPhases()
		}
		l.log(Result{At: now, Kind: KindReset, Agent: r.Agent,
			Note: "TESTS_FAILED: every phase of every domain runs again"})
	}
	out.Escalated = l.checkLimits(lim, now)
	return out
}

// checkLimits escalates when a limit is reached and returns the new
// escalation, or nil.
func (l *Loop) checkLimits(lim Limits, now time.Time) *Escalation {
	if l.Escalation != nil {
		return nil
	}
	var e *Escalation
	if lim.MaxFeedbackIterations > 0 && l.Iteration > lim.MaxFeedbackIterations {
		e = &Escalation{Reason: "max_feedback_iterations",
			Message: fmt.Sprintf("tests failed in %d review → test cycles (inter_phase.max_feedback_iterations: %d)",
				l.Iteration-1, lim.MaxFeedbackIterations)}
	}
	for _, d := range l.ModifiedDomains {
		if e != nil {
			break
		}
		for _, p := range Phases {
			n := *l.Failures[d].get(p)
			if max := lim.MaxFailures(d, p); max > 0 && n >= max {
				e = &Escalation{Reason: failureReason(p) + ":" + d,
					Message: fmt.Sprintf("%s of %s failed %d times in a row (inter_phase.%s: %d)",
						phaseLabel(p), d, n, limitKey(p), max)}
				break
			}
		}
	}
	if e == nil {
		return nil
	}
	if l.LastFailure != nil && len(l.LastFailure.Issues) > 0 {
		e.Message += "; last issues: " + strings.Join(l.LastFailure.Issues, "; ")
	}
	e.At = now
	l.Escalation = e
	l.log(Result{At: now, Kind: KindEscalated, Note: e.Reason + ": " + e.Message})
	return e
}

// Pending returns the domains whose phases have not all passed, in the
// order they were changed.
func (l *Loop) Pending() []string {
	var out []string
	for _, d := range l.ModifiedDomains {
		if ph := l.DomainPhases[d]; ph != nil && ph.Next() != "" {
			out = append(out, d)
		}
	}
	return out
}

// Complete marks the loop finished.
func (l *Loop) Complete(now time.Time) {
	l.Active = false
	t := now
	l.CompletedAt = &t
	l.UpdatedAt = now
	l.log(Result{At: now, Kind: KindComplete, Note: "every domain passed review, test planning and testing"})
}

// Close ends an escalated loop (the user's next prompt takes over).
func (l *Loop) Close(now time.Time) {
	l.Active = false
	l.UpdatedAt = now
	l.log(Result{At: now, Kind: KindClosed, Note: "closed by the user's prompt after escalation"})
}

func failureReason(phase string) string {
	switch phase {
	case PhaseReview:
		return "review_failures"
	case PhaseTestPlanning:
		return "planning_failures"
	}
	return "test_failures"
}

func phaseLabel(phase string) string {
	switch phase {
	case PhaseReview:
		return "review"
	case PhaseTestPlanning:
		return "test planning"
	}
	return "testing"
}

func expected(phase string) string {
	switch phase {
	case PhaseReview:
		return MarkerReviewApproved + " or " + MarkerReviewRejected
	case PhaseTestPlanning:
		return MarkerTestPlanReady + " or " + MarkerTestPlanBlocked
	}
	return MarkerTestsPassed + " or " + MarkerTestsFailed
}

// Issues extracts the list items that follow the last result marker in an
// agent's output ("- issue", "* issue", "1. issue"), as seed 002's result
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
	cut := maxIssueText
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
