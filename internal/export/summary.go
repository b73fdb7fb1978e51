package export

import (
	"time"
)

// Schema names the JSON export format. It changes only when a field is
// removed or changes meaning; added fields keep the version (readers must
// ignore fields they do not know). SCHEMA.md documents every field and
// schema.json is its JSON Schema.
const Schema = "spcstr.export/v3"

// Document is the JSON export: one or more session summaries.
type Document struct {
	Schema      string     `json:"schema"`
	GeneratedAt time.Time  `json:"generated_at"`
	Generator   string     `json:"generator"`
	Sessions    []*Summary `json:"sessions"`
}

// Summary is one session's summary. Every field is always present: lists are
// [] when empty, strings "" when unknown, and times null when not reached.
type Summary struct {
	SessionID      string `json:"session_id"`
	ProjectDir     string `json:"project_dir"`
	Branch         string `json:"branch"`
	Cwd            string `json:"cwd"`
	Model          string `json:"model"`
	PermissionMode string `json:"permission_mode"`
	TranscriptPath string `json:"transcript_path"`
	// Title names the session (state.json's title and title_source).
	Title       string     `json:"title"`
	TitleSource string     `json:"title_source"`
	Status      string     `json:"status"`
	Active      bool       `json:"session_active"`
	EndReason   string     `json:"end_reason"`
	StartedAt   time.Time  `json:"started_at"`
	EndedAt     *time.Time `json:"ended_at"`
	LastEventAt *time.Time `json:"last_event_at"`
	// DurationMS runs from StartedAt to EndedAt, or to LastEventAt while the
	// session has not ended.
	DurationMS  int64   `json:"duration_ms"`
	Starts      []Start `json:"starts"`
	Compactions int     `json:"compactions"`
	Tokens      Tokens  `json:"tokens"`
	Cost        Cost    `json:"cost"`
	Totals      Totals  `json:"totals"`

	Prompts       []Prompt       `json:"prompts"`
	Agents        []*Agent       `json:"agents"`
	Files         Files          `json:"files"`
	Tools         []ToolCount    `json:"tools"`
	Errors        []Error        `json:"errors"`
	Notifications []Notification `json:"notifications"`
	Todos         []Todo         `json:"todos"`
	Tasks         []Task         `json:"tasks"`

	Requirements  Requirements  `json:"requirements"`
	FeedbackLoop  FeedbackLoop  `json:"feedback_loop"`
	Decisions     Decisions     `json:"decisions"`
	Observability Observability `json:"observability"`
	Events        Events        `json:"events"`
}

// Start is one SessionStart.
type Start struct {
	Source string    `json:"source"`
	At     time.Time `json:"at"`
}

// Tokens is the session's token use: Claude Code's own counts when it
// stated them (cost.source "claude-code"), else the sum of every API
// message of the main and subagent transcripts, each counted once.
type Tokens struct {
	Input          int64   `json:"input"`
	Output         int64   `json:"output"`
	CacheRead      int64   `json:"cache_read"`
	CacheCreation  int64   `json:"cache_creation"`
	ContextUsed    int64   `json:"context_used"`
	ContextWindow  int64   `json:"context_window"`
	ContextPercent float64 `json:"context_percent"`
}

// Cost is the session's cost (docs/cost.md): Claude Code's own figure
// (Source "claude-code") or spcstr's estimate (Source "estimate", its
// tokens priced per message by model, package pricing). USD is null when
// no tokens were counted or no model has a price; with some models
// unpriced it is the priced part and LowerBound is true.
type Cost struct {
	USD        *float64    `json:"usd"`
	Source     string      `json:"source"`
	Estimate   bool        `json:"estimate"`
	LowerBound bool        `json:"lower_bound"`
	Unpriced   []string    `json:"unpriced_models"`
	Models     []ModelCost `json:"models"`
	// ClaudeCodeGuessUSD is Claude Code's own total when it priced a
	// model it did not know at another model's rates
	// (hasUnknownModelCost): its guess, never part of USD (null
	// otherwise).
	ClaudeCodeGuessUSD *float64 `json:"claude_code_guess_usd"`
	// ForkedFrom is, for a fork (--fork-session), the session whose
	// history its transcript copied (omitted otherwise).
	ForkedFrom string `json:"forked_from,omitempty"`
	// InheritedUSD is what a fork inherited, part of USD (Claude Code
	// counts its parent's figure at the fork point in the fork's): a sum
	// of sessions subtracts it (omitted for a session that is no fork).
	InheritedUSD *float64 `json:"inherited_usd,omitempty"`
}

// ModelCost is one model's tokens and cost (USD null: no price).
type ModelCost struct {
	Model         string   `json:"model"`
	USD           *float64 `json:"usd"`
	Input         int64    `json:"input"`
	Output        int64    `json:"output"`
	CacheRead     int64    `json:"cache_read"`
	CacheCreation int64    `json:"cache_creation"`
	// InheritedUSD is, in a fork, the part of USD inherited from the
	// parent (omitted when none).
	InheritedUSD *float64 `json:"inherited_usd,omitempty"`
}

// AgentUsage is a subagent's usage: the sum of its transcript's API
// messages (not its final context size), and their estimated cost.
type AgentUsage struct {
	Input         int64    `json:"input"`
	Output        int64    `json:"output"`
	CacheRead     int64    `json:"cache_read"`
	CacheCreation int64    `json:"cache_creation"`
	USD           *float64 `json:"usd"`
	LowerBound    bool     `json:"lower_bound"`
}

// Totals are the headline counts.
type Totals struct {
	Prompts       int `json:"prompts"`
	ToolCalls     int `json:"tool_calls"`
	Agents        int `json:"agents"`
	FilesNew      int `json:"files_new"`
	FilesEdited   int `json:"files_edited"`
	FilesRead     int `json:"files_read"`
	Errors        int `json:"errors"`
	Notifications int `json:"notifications"`
	Decisions     int `json:"decisions"`
	Events        int `json:"events"`
}

// Prompt is one user prompt, or a prompt Claude Code injected when a
// background task finished (Kind "task-notification"; Summary is its
// <summary>).
type Prompt struct {
	Timestamp time.Time `json:"timestamp"`
	Kind      string    `json:"kind"`
	Text      string    `json:"text"`
	Summary   string    `json:"summary"`
	PromptID  string    `json:"prompt_id"`
	Truncated bool      `json:"truncated"`
}

// Agent is one subagent, with the agents it spawned as Children.
type Agent struct {
	Name        string     `json:"name"`
	AgentID     string     `json:"agent_id"`
	AgentType   string     `json:"agent_type"`
	Description string     `json:"description"`
	ToolUseID   string     `json:"tool_use_id"`
	Background  bool       `json:"background"`
	Status      string     `json:"status"`
	Result      string     `json:"result"`
	Marker      string     `json:"marker"`
	StartedAt   time.Time  `json:"started_at"`
	CompletedAt *time.Time `json:"completed_at"`
	DurationMS  float64    `json:"duration_ms"`
	TotalTokens int64      `json:"total_tokens"`
	// Usage is nil when spcstr read no transcript of the agent.
	Usage    *AgentUsage `json:"usage"`
	Tools    []ToolCount `json:"tools"`
	Children []*Agent    `json:"children"`
}

// Files lists the paths touched, each once, in first-seen order.
type Files struct {
	New    []string `json:"new"`
	Edited []string `json:"edited"`
	Read   []string `json:"read"`
}

// ToolCount is one tool and how many calls of it finished.
type ToolCount struct {
	Name  string `json:"name"`
	Calls int    `json:"calls"`
}

// Error is one error of the session.
type Error struct {
	Timestamp time.Time `json:"timestamp"`
	Type      string    `json:"type"`
	Message   string    `json:"message"`
	Tool      string    `json:"tool"`
	File      string    `json:"file"`
	AgentID   string    `json:"agent_id"`
}

// Notification is one Notification event.
type Notification struct {
	Timestamp time.Time `json:"timestamp"`
	Type      string    `json:"type"`
	Title     string    `json:"title"`
	Message   string    `json:"message"`
}

// Todo is one entry of the latest TodoWrite list.
type Todo struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// Task is one TaskCreate/TaskUpdate task with its latest status.
type Task struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	Status  string `json:"status"`
}

// Section statuses of Requirements and FeedbackLoop.
const (
	// StatusOK: the section's source answered.
	StatusOK = "ok"
	// StatusNotConfigured: no requirements configuration exists.
	StatusNotConfigured = "not_configured"
	// StatusNotEnabled: the session has no feedback-loop.json.
	StatusNotEnabled = "not_enabled"
	// StatusUnavailable: the files exist but this build has no reader for
	// them (Sources not wired).
	StatusUnavailable = "unavailable"
	// StatusError: the source failed; Error says why.
	StatusError = "error"
)

// Requirements is the session's requirement status.
type Requirements struct {
	Status string      `json:"status"`
	Error  string      `json:"error"`
	Branch string      `json:"branch"`
	Items  []ReqStatus `json:"items"`
}

// ReqStatus is one requirement as it stands for the session.
type ReqStatus struct {
	Name string `json:"name"`
	// Scope is session, branch, single_use or permanent.
	Scope string `json:"scope"`
	// Enabled is false for a configured requirement that is switched off
	// (never enforced).
	Enabled bool `json:"enabled"`
	// Triggered: a triggering tool call was allowed this session.
	Triggered bool `json:"triggered"`
	Satisfied bool `json:"satisfied"`
	// SatisfiedBy is the skill, or "cli", that satisfied it.
	SatisfiedBy string     `json:"satisfied_by"`
	SatisfiedAt *time.Time `json:"satisfied_at"`
	// Message says what to run to satisfy it.
	Message string `json:"message"`
}

// FeedbackLoop is the session's feedback-loop state and history.
type FeedbackLoop struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	// State is active, escalated, bypassed (an orchestration skill owns
	// the loop), complete or idle.
	State         string             `json:"state"`
	Active        bool               `json:"active"`
	Iteration     int                `json:"iteration"`
	MaxIterations int                `json:"max_iterations"`
	Loops         int                `json:"loops"`
	StartedAt     *time.Time         `json:"started_at"`
	CompletedAt   *time.Time         `json:"completed_at"`
	Domains       []FeedbackDomain   `json:"domains"`
	Escalation    *FeedbackEscalate  `json:"escalation"`
	History       []FeedbackHistItem `json:"history"`
}

// Feedback phase statuses.
const (
	PhasePass   = "PASS"
	PhaseFail   = "FAIL"
	PhaseNotRun = "NOT_RUN"
)

// FeedbackDomain is one domain's phases (PASS, FAIL or NOT_RUN).
type FeedbackDomain struct {
	Name         string   `json:"name"`
	Review       string   `json:"review"`
	TestPlanning string   `json:"test_planning"`
	Testing      string   `json:"testing"`
	Files        []string `json:"files"`
}

// FeedbackEscalate says why the loop stopped enforcing.
type FeedbackEscalate struct {
	Reason  string    `json:"reason"`
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// FeedbackHistItem is one entry of the loop's history: a result that set a
// phase, or a loop event (started, reset, escalated, complete, ...).
type FeedbackHistItem struct {
	At        time.Time `json:"at"`
	Kind      string    `json:"kind"`
	Iteration int       `json:"iteration"`
	Domain    string    `json:"domain"`
	Phase     string    `json:"phase"`
	Agent     string    `json:"agent"`
	Marker    string    `json:"marker"`
	Status    string    `json:"status"`
	Note      string    `json:"note"`
}

// Decisions summarises decisions.json for the session (the decision
// summary, docs/logs.md). A record whose gate failed counts under Errors
// only; an allow that showed the user a warning counts under Warnings, not
// Allows.
type Decisions struct {
	Allows int `json:"allows"`
	// Warnings counts allows that showed the user a message.
	Warnings int `json:"warnings"`
	// Contexts counts the Allows that added context for Claude.
	Contexts int        `json:"contexts"`
	Blocks   int        `json:"blocks"`
	Denies   int        `json:"denies"`
	Errors   int        `json:"errors"`
	DryRun   int        `json:"dry_run"`
	Sources  []string   `json:"sources"`
	Timeline []Decision `json:"timeline"`
}

// Decision is one decisions.json record.
type Decision struct {
	Timestamp time.Time `json:"timestamp"`
	RequestID string    `json:"request_id"`
	Source    string    `json:"source"`
	Hook      string    `json:"hook"`
	Decision  string    `json:"decision"`
	Reason    string    `json:"reason"`
	Message   string    `json:"message"`
	// SystemMessage and Context are what an allow told the user and
	// Claude, as decisions.json keeps them (cut to 1 KiB).
	SystemMessage string  `json:"system_message"`
	Context       string  `json:"context"`
	DurationMS    float64 `json:"duration_ms"`
	DryRun        bool    `json:"dry_run"`
	Error         string  `json:"error"`
	// Enforcement is what became of the decision: enforced, dry-run,
	// failed-open, failed-closed or gave-way ("" in records written
	// before spcstr recorded it).
	Enforcement string `json:"enforcement"`
}

// Events summarises the session's entries in the event logs.
type Events struct {
	// Logged counts the entries found in the event logs; Counted is what
	// state.json counted. Logged is lower when logs were removed.
	Logged  int        `json:"logged"`
	Counted int        `json:"counted"`
	ByType  []EventNum `json:"by_type"`
	FirstAt *time.Time `json:"first_at"`
	LastAt  *time.Time `json:"last_at"`
	// Answers counts hook calls where spcstr printed an answer.
	Answers int `json:"answers"`
	// TruncatedPayloads counts entries with a payload field cut at the cap.
	TruncatedPayloads int `json:"truncated_payloads"`
	// HookErrors counts hook calls where spcstr noted a failure of its own.
	HookErrors int `json:"hook_errors"`
	// HookMS is the time spcstr's hook took per event.
	HookMS HookTime `json:"hook_ms"`
}

// EventNum is one event type and how many were logged.
type EventNum struct {
	Event string `json:"event"`
	Count int    `json:"count"`
}

// HookTime is the distribution of hook durations, in milliseconds.
type HookTime struct {
	Median float64 `json:"median"`
	// P95 is nil below MinCallsForP95 calls, where a 95th percentile is
	// only the slowest call again.
	P95   *float64 `json:"p95,omitempty"`
	Max   float64  `json:"max"`
	Total float64  `json:"total"`
}

// MinCallsForP95 is the fewest hook calls for which the export reports a
// 95th percentile: with fewer, it would only repeat the slowest call.
const MinCallsForP95 = 20
