package state

import (
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/satmath"
	"github.com/dylan-gluck/spcstr/internal/termtext"
)

// SchemaVersion is the version of the state.json schema written by this
// build. Readers accept older versions; fields are only ever added.
//
// Version 2 bounds the file: prompts, errors, notifications and finished
// agents keep only the latest Keep entries (counted in full by the *_total
// fields), and a prompt's text is cut to a preview (the whole text is in the
// user_prompt_submit log). A version 1 file is migrated on its next write.
const SchemaVersion = 2

// DefaultKeep is how many prompts, errors, notifications and finished
// agents state.json keeps when config.yaml does not say (state.keep).
const DefaultKeep = 100

// Previews: how much of a prompt's or an error's text state.json keeps.
// The logs keep the payload itself.
const (
	PromptPreviewBytes = 500
	ErrorPreviewBytes  = 1000
)

// Session statuses (docs/state.md).
const (
	StatusWorking    = "working"     // after a prompt or tool event
	StatusWaiting    = "waiting"     // after Stop: the user has the floor
	StatusNeedsInput = "needs_input" // a permission or idle prompt is showing
	StatusEnded      = "ended"       // after SessionEnd
)

// Session is one session's state.json (docs/state.md): the original
// session schema field for field, plus spcstr's additive fields.
type Session struct {
	Version       int       `json:"version"`
	SessionID     string    `json:"session_id"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
	SessionActive bool      `json:"session_active"`
	Status        string    `json:"status"`
	EndReason     string    `json:"end_reason,omitempty"`
	// Wait says what the session waits for while its status is
	// needs_input or waiting (Wait* constants; "" when not known), Asked
	// what in a few words ("Bash `npm publish`", a question, the API
	// error) and WaitSince since when.
	Wait      string    `json:"wait,omitempty"`
	Asked     string    `json:"asked,omitempty"`
	WaitSince time.Time `json:"wait_since,omitzero"`

	ProjectDir     string `json:"project_dir"`
	Branch         string `json:"branch,omitempty"`
	Cwd            string `json:"cwd,omitempty"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	Model          string `json:"model,omitempty"`
	PermissionMode string `json:"permission_mode,omitempty"`

	// Title names the session for people (docs/state.md): Claude Code's
	// own title or summary from the transcript, else the first prompt,
	// else the first tool call; TitleSource says which (Title* constants).
	Title       string `json:"title,omitempty"`
	TitleSource string `json:"title_source,omitempty"`

	// Agents lists the names of agents running now.
	Agents        []string `json:"agents"`
	AgentsHistory []Agent  `json:"agents_history"`

	Files         Files          `json:"files"`
	ToolsUsed     map[string]int `json:"tools_used"`
	Errors        []Error        `json:"errors"`
	Prompts       []Prompt       `json:"prompts"`
	Notifications []Notification `json:"notifications"`
	// Totals count every prompt, error, notification and agent of the
	// session; the lists above keep only the latest ones.
	PromptsTotal       int    `json:"prompts_total"`
	ErrorsTotal        int    `json:"errors_total"`
	NotificationsTotal int    `json:"notifications_total"`
	AgentsTotal        int    `json:"agents_total"`
	Todos              []Todo `json:"todos,omitempty"`
	Tasks              []Task `json:"tasks,omitempty"`

	Tokens      Tokens  `json:"tokens"`
	Compactions int     `json:"compactions"`
	Starts      []Start `json:"starts"`

	// EventCounts counts every event received, by CamelCase name.
	EventCounts map[string]int `json:"event_counts"`
	LastEvent   string         `json:"last_event,omitempty"`
	LastEventAt time.Time      `json:"last_event_at,omitzero"`

	// Activity counts events per minute (the most recent three hours), for
	// the dashboard's sparkline.
	Activity []MinuteCount `json:"activity,omitempty"`

	// Transcript is the recorder's read position in the transcript.
	Transcript TranscriptCursor `json:"transcript_cursor,omitzero"`
	// Subagents is the recorder's read position in, and the usage of, each
	// subagent transcript of the session, by agent id.
	Subagents map[string]SubagentUsage `json:"subagents,omitempty"`
	// ClaudeCost is Claude Code's own figure of the session's cost (its
	// transcript's cost-state line), nil until Claude Code writes one.
	ClaudeCost *ClaudeCost `json:"claude_cost,omitempty"`
	// ForkedFrom is the session this one was forked from (`claude --resume
	// ID --fork-session`): the requestSessionId Claude Code stamps on the
	// assistant lines it copies into a fork's transcript ("" for a session
	// that is no fork).
	ForkedFrom string `json:"forked_from,omitempty"`
	// Inherited is the usage of the messages a fork's transcript copied
	// from its parent, by usage key (as Tokens.ByModel). They are in this
	// session's figure (Claude Code counts them in the fork's too) and are
	// subtracted when sessions are summed, so that they count once.
	Inherited map[string]ModelUsage `json:"inherited,omitempty"`
	// InheritedCost is a fork's inheritance as a figure: its parent's
	// whole figure at the fork point (Claude Code's own when the parent
	// had one, else spcstr's estimate of it), whatever it came from (the
	// parent's main transcript, its subagents, its compactions, an earlier
	// fork). Claude Code counts it in the fork's own figure; a sum of
	// sessions subtracts it, so that a lineage counts once. nil for a
	// session that is no fork, or a fork recorded before it existed.
	InheritedCost *ClaudeCost `json:"inherited_cost,omitempty"`
	// Live is Claude Code's live figure of the session, as its status line
	// command last received it (spcstr statusline): nil until one ran.
	Live *LiveCost `json:"live,omitempty"`
	// GitHead caches the branch with its HEAD file's stamp.
	GitHead gitrepo.HeadCache `json:"git_head,omitzero"`

	// Gates holds per-gate bookkeeping the recorder keeps across hooks
	// (the Stop escalation count of gate.Run, docs/answers.md).
	Gates map[string]GateState `json:"gates,omitempty"`

	// Notes holds one-per-session flags ("warned about invalid config").
	Notes map[string]bool `json:"notes,omitempty"`

	// Terminal is where the session's Claude Code runs, as its
	// SessionStart hook's environment said (the dashboard's o key).
	Terminal Terminal `json:"terminal,omitzero"`

	// ClaudePID is the process id of the session's Claude Code
	// ($CLAUDE_PID, else the hook's parent), taken at SessionStart or
	// the first event spcstr saw: the dashboard checks it when the
	// registry has no entry (the next session's start drops the entry of
	// a process that is gone), so a crashed session still shows as gone.
	ClaudePID int `json:"claude_pid,omitempty"`

	// SectionSums are the CRC-32 (IEEE) checksums of the file's section lines
	// as the last hook wrote them (docs/state.md): a hook copies a section
	// whose bytes still match its sum without scanning it, and scans one
	// that does not (changed outside spcstr) before copying it.
	SectionSums []int64 `json:"section_sums,omitempty"`

	// dropped counts the entries of each bounded list already cut off
	// (total − len at load), so that totals stay right whatever the
	// update appends or removes.
	dropped [4]int
	// lz holds the sections an update left encoded.
	lz lazy
}

// Terminal is what it takes to find a session's terminal pane: only the
// identifiers the terminal's own command-line interface needs
// (docs/state.md).
type Terminal struct {
	// Kind is tmux, zellij, kitty, wezterm or iterm2, else "" (see
	// Program).
	Kind string `json:"kind,omitempty"`
	// Socket is tmux's server socket (the first field of TMUX) or kitty's
	// remote-control address (KITTY_LISTEN_ON).
	Socket string `json:"socket,omitempty"`
	// Pane is the pane: TMUX_PANE, ZELLIJ_PANE_ID, WEZTERM_PANE,
	// ITERM_SESSION_ID, or kitty's KITTY_WINDOW_ID.
	Pane string `json:"pane,omitempty"`
	// Session is zellij's session name (ZELLIJ_SESSION_NAME).
	Session string `json:"session,omitempty"`
	// Program is TERM_PROGRAM (the terminal, when no multiplexer says
	// more).
	Program string `json:"program,omitempty"`
}

// IsZero reports whether nothing is known of the terminal.
func (t Terminal) IsZero() bool { return t == Terminal{} }

// Agent is one subagent invocation (agents_history entry).
type Agent struct {
	// Name is the agent's type as requested (the original schema's field).
	Name        string         `json:"name"`
	AgentID     string         `json:"agent_id,omitempty"`
	AgentType   string         `json:"agent_type,omitempty"`
	Description string         `json:"description,omitempty"`
	ToolUseID   string         `json:"tool_use_id,omitempty"`
	Background  bool           `json:"background"`
	StartedAt   time.Time      `json:"started_at"`
	CompletedAt *time.Time     `json:"completed_at,omitempty"`
	Status      string         `json:"status,omitempty"` // running, completed, failed, stopped
	Result      string         `json:"result,omitempty"` // PASS or FAIL when a marker was found
	Marker      string         `json:"marker,omitempty"` // REVIEW_APPROVED, TESTS_FAILED, ...
	ToolsUsed   map[string]int `json:"tools_used,omitempty"`
	DurationMS  float64        `json:"duration_ms,omitempty"`
	TotalTokens int64          `json:"total_tokens,omitempty"`
	// Usage is the usage of the agent's own transcript (by usage key, as
	// Tokens.ByModel), moved here from Session.Subagents once it was read
	// to its end; AgentUsage adds what is still being read.
	Usage map[string]ModelUsage `json:"usage,omitempty"`
}

// AgentUsage returns the usage of an agent's transcript (by usage key):
// what its finished reading left in its AgentsHistory entry and what is
// still being read (nil when spcstr read none).
func (s *Session) AgentUsage(id string) map[string]ModelUsage {
	if id == "" {
		return nil
	}
	var out map[string]ModelUsage
	add := func(by map[string]ModelUsage) {
		for k, u := range by {
			if out == nil {
				out = map[string]ModelUsage{}
			}
			m := out[k]
			m.Add(u)
			out[k] = m
		}
	}
	if a := s.FindAgent(id); a != nil {
		add(a.Usage)
	}
	_ = s.LoadDoneSubagents() // a finished agent with no AgentsHistory entry keeps its usage there
	if sub, ok := s.Subagents[id]; ok {
		add(sub.ByModel)
		if out == nil {
			out = map[string]ModelUsage{}
		}
	}
	return out
}

// Agent statuses.
const (
	AgentRunning   = "running"
	AgentCompleted = "completed"
	AgentFailed    = "failed"
	// AgentStopped: still running when its session ended.
	AgentStopped = "stopped"
)

// Running reports whether the agent has not completed.
func (a *Agent) Running() bool { return a.CompletedAt == nil }

// Files lists paths touched in the session, each once, in first-seen order,
// relative to the project root when inside it.
type Files struct {
	New    []string `json:"new"`
	Edited []string `json:"edited"`
	Read   []string `json:"read"`
}

// Error is one entry of errors[]. Type is "tool_failure", "tool_error",
// "stop_failure" or "spcstr" (spcstr's own failures).
type Error struct {
	Timestamp time.Time      `json:"timestamp"`
	Type      string         `json:"type"`
	Message   string         `json:"message"`
	Context   map[string]any `json:"context,omitempty"`
}

// Error types.
const (
	ErrorToolFailure = "tool_failure"
	ErrorTool        = "tool_error"
	ErrorStopFailure = "stop_failure"
	ErrorSpcstr      = "spcstr"
)

// Prompt is one user prompt. Kind is "task-notification" for the prompts
// Claude Code injects when a background agent finishes.
type Prompt struct {
	Timestamp time.Time `json:"timestamp"`
	Prompt    string    `json:"prompt"`
	Kind      string    `json:"kind,omitempty"`
	PromptID  string    `json:"prompt_id,omitempty"`
	Truncated bool      `json:"truncated,omitempty"`
}

// Title sources, strongest first: a title from the transcript replaces
// one from a prompt, which replaces one from a tool call.
const (
	TitleCustom  = "custom-title" // the user named the session (/rename)
	TitleAI      = "ai-title"     // Claude Code generated it
	TitleSummary = "summary"      // a transcript summary line (older versions)
	TitlePrompt  = "prompt"       // the first prompt
	TitleTool    = "tool"         // the first tool call
)

// TitleBytes bounds a title's length.
const TitleBytes = 200

// titleRank orders title sources (higher wins).
func titleRank(src string) int {
	switch src {
	case TitleCustom:
		return 5
	case TitleAI:
		return 4
	case TitleSummary:
		return 3
	case TitlePrompt:
		return 2
	case TitleTool:
		return 1
	}
	return 0
}

// SetTitle records title t from source src unless the session already has
// a title from a stronger source (a transcript title replaces an older
// one of the same kind: Claude Code appends the newest last). t is
// flattened to one line and cut to TitleBytes; an empty t changes nothing.
func (s *Session) SetTitle(t, src string) {
	t = strings.Join(strings.Fields(t), " ")
	if t == "" {
		return
	}
	r, cur := titleRank(src), titleRank(s.TitleSource)
	if r < cur || r == cur && r <= titleRank(TitlePrompt) {
		return
	}
	s.Title, s.TitleSource = strings.TrimSpace(termtext.Cut(t, TitleBytes)), src
}

// PromptKindTaskNotification marks prompts injected for finished background
// agents.
const PromptKindTaskNotification = "task-notification"

// Notification is one Notification event.
type Notification struct {
	Timestamp time.Time `json:"timestamp"`
	Message   string    `json:"message"`
	Type      string    `json:"type,omitempty"`
	Title     string    `json:"title,omitempty"`
}

// Todo is one TodoWrite entry (the latest list replaces the previous one).
type Todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm,omitempty"`
}

// Task is one TaskCreate/TaskUpdate task, with its latest status.
type Task struct {
	ID          string    `json:"id"`
	Subject     string    `json:"subject,omitempty"`
	Description string    `json:"description,omitempty"`
	Status      string    `json:"status,omitempty"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// Tokens is token use read from the transcript. Input, Output, CacheRead and
// CacheCreation are session totals (each API message counted once);
// ContextUsed is the context size of the latest main-chain request.
// ByModel splits the totals by the model that answered (subagents may run
// another model than the session), for pricing.
type Tokens struct {
	Input         int64                 `json:"input"`
	Output        int64                 `json:"output"`
	CacheRead     int64                 `json:"cache_read"`
	CacheCreation int64                 `json:"cache_creation"`
	ContextUsed   int64                 `json:"context_used"`
	ContextWindow int64                 `json:"context_window"`
	ByModel       map[string]ModelUsage `json:"by_model,omitempty"`
	// Skipped counts transcript messages not counted because their usage
	// was absurd (negative, or beyond any real request).
	Skipped int64 `json:"skipped,omitempty"`
}

// ModelUsage is the tokens of one model's messages. CacheWrite1h is the
// part of CacheCreation written to the 1-hour cache; WebSearches counts
// server-side web searches.
type ModelUsage struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheRead     int64 `json:"cache_read"`
	CacheCreation int64 `json:"cache_creation"`
	CacheWrite1h  int64 `json:"cache_write_1h,omitempty"`
	WebSearches   int64 `json:"web_searches,omitempty"`
}

// Add adds u to m, each count saturating.
func (m *ModelUsage) Add(u ModelUsage) {
	m.Input = satmath.Add(m.Input, u.Input)
	m.Output = satmath.Add(m.Output, u.Output)
	m.CacheRead = satmath.Add(m.CacheRead, u.CacheRead)
	m.CacheCreation = satmath.Add(m.CacheCreation, u.CacheCreation)
	m.CacheWrite1h = satmath.Add(m.CacheWrite1h, u.CacheWrite1h)
	m.WebSearches = satmath.Add(m.WebSearches, u.WebSearches)
}

// SubagentUsage is one subagent transcript's read position and usage (by
// usage key, as Tokens.ByModel). Stopped marks an agent whose
// SubagentStop came; Done a transcript read to its end after that: later
// hooks do not look at it again.
type SubagentUsage struct {
	Cursor  TranscriptCursor      `json:"cursor,omitzero"`
	ByModel map[string]ModelUsage `json:"by_model,omitempty"`
	Stopped bool                  `json:"stopped,omitempty"`
	Done    bool                  `json:"done,omitempty"`
}

// ClaudeCost is Claude Code's own account of the session's cost, from the
// cost-state line it writes into the main transcript: its total in US
// dollars, its token counts and dollars by model, and whether it met a
// model it could not price.
type ClaudeCost struct {
	USD          float64                    `json:"usd"`
	UnknownModel bool                       `json:"unknown_model,omitempty"`
	ByModel      map[string]ClaudeModelCost `json:"by_model,omitempty"`
}

// ClaudeModelCost is one model's line of Claude Code's account.
type ClaudeModelCost struct {
	Input         int64   `json:"input"`
	Output        int64   `json:"output"`
	CacheRead     int64   `json:"cache_read"`
	CacheCreation int64   `json:"cache_creation"`
	WebSearches   int64   `json:"web_searches,omitempty"`
	USD           float64 `json:"usd"`
}

// ContextPercent returns context use as a percentage of the window (0 when
// unknown).
func (t Tokens) ContextPercent() float64 {
	if t.ContextWindow <= 0 {
		return 0
	}
	return float64(t.ContextUsed) * 100 / float64(t.ContextWindow)
}

// Start is one SessionStart (startup, resume, clear, compact, fork).
type Start struct {
	Source string    `json:"source"`
	At     time.Time `json:"at"`
}

// TranscriptCursor remembers how far the transcript has been read, and the
// usage counted for the most recent message ids so that a message whose
// lines straddle two reads is counted once, with its last line winning.
type TranscriptCursor struct {
	Path   string         `json:"path,omitempty"`
	Offset int64          `json:"offset,omitempty"`
	Recent []MessageUsage `json:"recent,omitempty"`
}

// IsZero reports whether nothing has been read yet (omitzero uses it).
func (c TranscriptCursor) IsZero() bool {
	return c.Path == "" && c.Offset == 0 && len(c.Recent) == 0
}

// MessageUsage is the usage counted for one API message id.
type MessageUsage struct {
	ID            string `json:"id"`
	Input         int64  `json:"input"`
	Output        int64  `json:"output"`
	CacheRead     int64  `json:"cache_read"`
	CacheCreation int64  `json:"cache_creation"`
	CacheWrite1h  int64  `json:"cache_write_1h,omitempty"`
	WebSearches   int64  `json:"web_searches,omitempty"`
	// Key is the usage key the message was counted under (Tokens.ByModel).
	Key string `json:"key,omitempty"`
}

// MinuteCount is the number of events received in one minute (Minute is
// Unix time / 60).
type MinuteCount struct {
	Minute int64 `json:"minute"`
	Count  int   `json:"count"`
}

// GateState is the recorder's bookkeeping for one gate.
type GateState struct {
	// StopBlocks counts consecutive Stop blocks without progress.
	StopBlocks int `json:"stop_blocks,omitempty"`
	// ToolsAtBlock is the session's completed tool count at the last block;
	// a higher count at the next Stop is progress.
	ToolsAtBlock int `json:"tools_at_block,omitempty"`
}

// New returns the initial state of a session.
func New(id, projectDir string, now time.Time) *Session {
	return &Session{
		Version:       SchemaVersion,
		SessionID:     id,
		CreatedAt:     now,
		UpdatedAt:     now,
		SessionActive: true,
		Status:        StatusWaiting,
		ProjectDir:    projectDir,
		Agents:        []string{},
		AgentsHistory: []Agent{},
		Files:         Files{New: []string{}, Edited: []string{}, Read: []string{}},
		ToolsUsed:     map[string]int{},
		Errors:        []Error{},
		Prompts:       []Prompt{},
		Notifications: []Notification{},
		Starts:        []Start{},
		EventCounts:   map[string]int{},
	}
}

// Normalize fills nil collections of a state read from disk (an older or
// hand-edited file) so that code can append without checks.
func (s *Session) Normalize() {
	if s.Agents == nil {
		s.Agents = []string{}
	}
	if s.AgentsHistory == nil {
		s.AgentsHistory = []Agent{}
	}
	if s.Files.New == nil {
		s.Files.New = []string{}
	}
	if s.Files.Edited == nil {
		s.Files.Edited = []string{}
	}
	if s.Files.Read == nil {
		s.Files.Read = []string{}
	}
	if s.ToolsUsed == nil {
		s.ToolsUsed = map[string]int{}
	}
	if s.Errors == nil {
		s.Errors = []Error{}
	}
	if s.Prompts == nil {
		s.Prompts = []Prompt{}
	}
	if s.Notifications == nil {
		s.Notifications = []Notification{}
	}
	if s.Starts == nil {
		s.Starts = []Start{}
	}
	if s.EventCounts == nil {
		s.EventCounts = map[string]int{}
	}
}

// ToolCalls returns the number of completed tool calls.
func (s *Session) ToolCalls() int {
	n := 0
	for _, c := range s.ToolsUsed {
		n = satmath.Add(n, c)
	}
	return n
}

// FindAgent returns the history entry with the given agent id, or nil.
func (s *Session) FindAgent(agentID string) *Agent {
	if agentID == "" {
		return nil
	}
	for i := range s.AgentsHistory {
		if s.AgentsHistory[i].AgentID == agentID {
			return &s.AgentsHistory[i]
		}
	}
	return nil
}

// Note records a one-per-session flag and reports whether it was new.
func (s *Session) Note(key string) bool {
	if s.Notes[key] {
		return false
	}
	if s.Notes == nil {
		s.Notes = map[string]bool{}
	}
	s.Notes[key] = true
	return true
}
