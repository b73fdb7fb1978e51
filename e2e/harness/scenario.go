package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Scenario is one scripted session (a JSON file under testdata/scenarios).
// The runner reads the prompt, environment, arguments, permission mode,
// project files and settings; the mock API reads the turns, agents and
// the answers for side and compaction requests; Check reads Expect.
type Scenario struct {
	Description    string            `json:"description"`
	Prompt         string            `json:"prompt"`
	Timeout        int               `json:"timeout"` // seconds; 0 means 120
	Env            map[string]string `json:"env"`
	Args           []string          `json:"args"`
	PermissionMode string            `json:"permission_mode"` // "" means bypassPermissions
	ProjectFiles   map[string]string `json:"project_files"`
	Settings       map[string]any    `json:"settings"`
	// Helper names a helper hook (see Helpers) that runs as the hook
	// command after the capture, when the test does not give one.
	Helper string `json:"helper"`
	// Then, when set, is a second `claude -p` in the same project after
	// the first: --resume of the first session, with --fork-session when
	// Fork. The mock serves it from the same turns (its turn index counts
	// the resumed history's assistant messages, so its turns follow the
	// first run's).
	Then *Continue `json:"then"`

	Turns          []Turn   `json:"turns"`
	Agents         []Agent  `json:"agents"`
	SideText       string   `json:"side_text"`
	FallbackText   string   `json:"fallback_text"`
	SummaryMarkers []string `json:"summary_markers"`
	SummaryText    string   `json:"summary_text"`

	Expect Expect `json:"expect"`
}

// Continue is a scenario's second run; its own Then, a third run that
// resumes (or forks) the second's session, and so on (a fork of a fork).
type Continue struct {
	Prompt string    `json:"prompt"`
	Fork   bool      `json:"fork"`
	Then   *Continue `json:"then"`
}

// Turn is one scripted answer of the model.
type Turn struct {
	Text       string  `json:"text"`
	Tools      []Tool  `json:"tools"`
	StopReason string  `json:"stop_reason"`
	Delay      float64 `json:"delay"` // seconds before answering
	// Usage is the answer's usage: the API's flat counts, and
	// ephemeral_1h_input_tokens / ephemeral_5m_input_tokens, which the
	// mock sends as usage.cache_creation's split of the cache writes.
	Usage     map[string]int64 `json:"usage"`
	HTTPError *HTTPError       `json:"http_error"`
}

// Tool is one tool call in a turn.
type Tool struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// HTTPError makes the mock answer a turn with an API error.
type HTTPError struct {
	Status  int    `json:"status"`
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Agent is a subagent's conversation, recognised by Match in its first
// user message (the prompt the parent gave the Agent tool).
type Agent struct {
	Name  string `json:"name"`
	Match string `json:"match"`
	Turns []Turn `json:"turns"`
}

// Expect is what Check verifies after a run.
type Expect struct {
	// EventsInOrder is a subsequence of the captured events, each
	// "Event" or "Event:ToolName".
	EventsInOrder []string `json:"events_in_order"`
	// Counts is the exact number of invocations per "Event" or
	// "Event:ToolName".
	Counts map[string]int `json:"counts"`
	// Contains lists [event, substring]: some payload of that event, as
	// JSON text, contains the substring.
	Contains [][2]string `json:"contains"`
	// StopHookActive is stop_hook_active of the Stop events, in order.
	StopHookActive []bool `json:"stop_hook_active"`
	// Files are project files and their exact contents afterwards (nil:
	// the file must not exist).
	Files map[string]*string `json:"files"`
}

// LoadScenario reads a scenario, with ${PROJECT} and ${OUTDIR} replaced
// by the run's project folder and output folder everywhere.
func LoadScenario(path, project, outDir string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := string(data)
	for name, v := range map[string]string{"PROJECT": project, "OUTDIR": outDir} {
		q, _ := json.Marshal(v)
		text = strings.ReplaceAll(text, "${"+name+"}", string(q[1:len(q)-1]))
	}
	var sc Scenario
	if err := json.Unmarshal([]byte(text), &sc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &sc, nil
}
