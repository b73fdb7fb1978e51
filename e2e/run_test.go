package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/e2e/harness"
)

// scenario is one harness run.
type scenario struct {
	name string
	// file is the scenario JSON (the harness's or ours).
	file string
	// helper is the scenario's own hook (selftest_hook_command), run after
	// spcstr on the same stdin; "" when there is none.
	helper string
	// noProjectDir runs spcstr without CLAUDE_PROJECT_DIR, so it must find
	// the root from the payload's cwd.
	noProjectDir bool
}

// run is what one scenario produced.
type run struct {
	sc      scenario
	out     string // OUTDIR (symlinks resolved, as the harness sees it)
	project string // OUTDIR/project
	spcstr  string // OUTDIR/project/.spcstr

	captured []capture
	results  []hookResult // spcstr's own exit code and output per invocation
	sid      string
	state    session
	logs     map[string][]logEntry // by file name without .json
	elapsed  time.Duration
}

// capture is one line of captured.jsonl.
type capture struct {
	Event      string          `json:"event"`
	Cwd        string          `json:"cwd"`
	ProjectDir string          `json:"CLAUDE_PROJECT_DIR"`
	Payload    json.RawMessage `json:"payload"`
	PayloadRaw *string         `json:"payload_raw"`

	p payload
}

// payload holds the payload fields the expectations are derived from.
type payload struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	Source         string          `json:"source"`
	Model          string          `json:"model"`
	Prompt         string          `json:"prompt"`
	PromptID       string          `json:"prompt_id"`
	ToolName       string          `json:"tool_name"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	AgentID        string          `json:"agent_id"`
	AgentType      *string         `json:"agent_type"`
	Reason         string          `json:"reason"`
	StopHookActive bool            `json:"stop_hook_active"`
	LastMessage    string          `json:"last_assistant_message"`
	NewCwd         string          `json:"new_cwd"`
	TaskID         string          `json:"task_id"`
	TaskSubject    string          `json:"task_subject"`
}

func (p payload) agentType() string {
	if p.AgentType == nil {
		return ""
	}
	return *p.AgentType
}

// toolInput holds the tool_input fields the expectations use.
type toolInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Description  string `json:"description"`
	SubagentType string `json:"subagent_type"`
	Todos        []todo `json:"todos"`
}

// toolResponse holds the tool_response fields the expectations use.
type toolResponse struct {
	Type      string `json:"type"`
	Status    string `json:"status"`
	IsAsync   bool   `json:"isAsync"`
	AgentID   string `json:"agentId"`
	AgentType string `json:"agentType"`
}

func (p payload) input() toolInput {
	var in toolInput
	_ = json.Unmarshal(p.ToolInput, &in)
	return in
}

func (p payload) response() toolResponse {
	var r toolResponse
	_ = json.Unmarshal(p.ToolResponse, &r) // a string response leaves it zero
	return r
}

// hookResult is spcstr's exit code and output for one invocation.
type hookResult struct {
	Event    string `json:"event"`
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
}

// session is state.json as the contract (docs/state.md) names its fields; the
// test decodes it on its own rather than with package state, so a renamed
// field is caught.
type session struct {
	Version        int            `json:"version"`
	SessionID      string         `json:"session_id"`
	SessionActive  bool           `json:"session_active"`
	Status         string         `json:"status"`
	EndReason      string         `json:"end_reason"`
	ProjectDir     string         `json:"project_dir"`
	Branch         string         `json:"branch"`
	Cwd            string         `json:"cwd"`
	TranscriptPath string         `json:"transcript_path"`
	Model          string         `json:"model"`
	Agents         []string       `json:"agents"`
	AgentsHistory  []agent        `json:"agents_history"`
	Files          files          `json:"files"`
	ToolsUsed      map[string]int `json:"tools_used"`
	Errors         []stateError   `json:"errors"`
	Prompts        []prompt       `json:"prompts"`
	Todos          []todo         `json:"todos"`
	Tasks          []task         `json:"tasks"`
	Tokens         tokens         `json:"tokens"`
	Compactions    int            `json:"compactions"`
	Starts         []start        `json:"starts"`
	EventCounts    map[string]int `json:"event_counts"`
}

type agent struct {
	Name        string         `json:"name"`
	AgentID     string         `json:"agent_id"`
	AgentType   string         `json:"agent_type"`
	Description string         `json:"description"`
	ToolUseID   string         `json:"tool_use_id"`
	Background  bool           `json:"background"`
	CompletedAt *time.Time     `json:"completed_at"`
	Status      string         `json:"status"`
	Result      string         `json:"result"`
	Marker      string         `json:"marker"`
	ToolsUsed   map[string]int `json:"tools_used"`
}

type files struct {
	New    []string `json:"new"`
	Edited []string `json:"edited"`
	Read   []string `json:"read"`
}

type stateError struct {
	Type    string         `json:"type"`
	Message string         `json:"message"`
	Context map[string]any `json:"context"`
}

type prompt struct {
	Prompt   string `json:"prompt"`
	Kind     string `json:"kind"`
	PromptID string `json:"prompt_id"`
}

type todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm"`
}

type task struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	Status  string `json:"status"`
}

type tokens struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheRead     int64 `json:"cache_read"`
	CacheCreation int64 `json:"cache_creation"`
	ContextUsed   int64 `json:"context_used"`
	ContextWindow int64 `json:"context_window"`
}

type start struct {
	Source string `json:"source"`
}

// logEntry is one entry of .spcstr/logs/<event>.json (docs/logs.md).
type logEntry struct {
	Timestamp time.Time       `json:"timestamp"`
	SessionID string          `json:"session_id"`
	Event     string          `json:"event"`
	Input     json.RawMessage `json:"input"`
	Truncated map[string]int  `json:"truncated"`
	Outcome   *struct {
		Answer     json.RawMessage `json:"answer"`
		DurationMS float64         `json:"duration_ms"`
		Error      string          `json:"error"`
	} `json:"outcome"`
}

// runScenario runs one scenario through the harness and loads everything
// it produced. It fails the test when the run itself failed or did not do
// what the scenario's "expect" block says (harness.Check), so that the
// assertions on spcstr start from a known Claude Code behaviour.
func runScenario(t *testing.T, sc scenario) *run {
	t.Helper()
	base := t.TempDir()
	if keep := os.Getenv("SPCSTR_E2E_KEEP"); keep != "" {
		base = filepath.Join(keep, sc.name)
		if err := os.RemoveAll(base); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(base, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := filepath.EvalSymlinks(out)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{sc: sc, out: out, project: filepath.Join(out, "project")}
	r.spcstr = filepath.Join(r.project, ".spcstr")
	scFile := filepath.Join(base, sc.name+".json")
	writeScenario(t, sc.file, scFile)

	hook := "SPCSTR_REGISTRY=" + harness.ShellQuote(filepath.Join(out, "registry.json")) + " "
	if sc.noProjectDir {
		hook += "env -u CLAUDE_PROJECT_DIR "
	}
	runs := filepath.Join(out, "spcstr-runs")
	if sc.helper != "" {
		chain, err := filepath.Abs(filepath.Join("testdata", "chain.sh"))
		if err != nil {
			t.Fatal(err)
		}
		hook += harness.ShellQuote(chain) + " " + harness.ShellQuote(spcstrBin) + " " + harness.ShellQuote(runs) + " " + sc.helper
	} else {
		hook += harness.ShellQuote(spcstrBin) + " hook"
	}

	// The scenarios' own limits (120-150 s) are tight on a loaded 2-core
	// machine, where a run has been seen to take 90 s.
	res, err := env.Run(t.Context(), harness.Options{Scenario: scFile, HookCommand: hook, OutDir: out, Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatalf("harness run %s: %v", sc.name, err)
	}
	r.elapsed = res.Elapsed
	if fails := harness.Check(scFile, res); len(fails) > 0 {
		claudeErr, _ := os.ReadFile(filepath.Join(out, "claude.stderr"))
		t.Fatalf("Claude Code did not behave as scenario %s expects, so spcstr's records cannot be judged:\n%s\nclaude.stderr:\n%s",
			sc.name, strings.Join(fails, "\n"), tail(claudeErr, 2000))
	}

	r.captured = readCaptured(t, filepath.Join(out, "captured.jsonl"))
	r.sid = r.captured[0].p.SessionID
	if sc.helper != "" {
		r.results = readChainRuns(t, runs)
	} else {
		r.results = readJSONL[hookResult](t, filepath.Join(out, "hook_results.jsonl"))
	}
	return r
}

// writeScenario copies a scenario, adding the .spcstr/ placeholder that
// makes the project a spcstr project when the scenario lacks one.
func writeScenario(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var sc map[string]any
	if err := json.Unmarshal(data, &sc); err != nil {
		t.Fatalf("%s: %v", from, err)
	}
	pf, _ := sc["project_files"].(map[string]any)
	if pf == nil {
		pf = map[string]any{}
	}
	hasSpcstr := false
	for k := range pf {
		if strings.HasPrefix(k, ".spcstr/") {
			hasSpcstr = true
		}
	}
	if !hasSpcstr {
		pf[".spcstr/.keep"] = ""
	}
	sc["project_files"] = pf
	data, err = json.MarshalIndent(sc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readCaptured(t *testing.T, path string) []capture {
	t.Helper()
	caps := readJSONL[capture](t, path)
	if len(caps) == 0 {
		t.Fatalf("%s: no hook payloads captured", path)
	}
	for i := range caps {
		c := &caps[i]
		if c.PayloadRaw != nil || len(c.Payload) == 0 {
			t.Fatalf("captured record %d (%s): payload is not JSON", i, c.Event)
		}
		if err := json.Unmarshal(c.Payload, &c.p); err != nil {
			t.Fatalf("captured record %d (%s): %v", i, c.Event, err)
		}
	}
	return caps
}

func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	v, err := harness.ReadJSONL[T](path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// readChainRuns reads spcstr's results as kept by testdata/chain.sh.
func readChainRuns(t *testing.T, dir string) []hookResult {
	t.Helper()
	rcs, err := filepath.Glob(filepath.Join(dir, "hook.*.rc"))
	if err != nil {
		t.Fatal(err)
	}
	var out []hookResult
	for _, rc := range rcs {
		base := strings.TrimSuffix(rc, ".rc")
		code, err := os.ReadFile(rc)
		if err != nil {
			t.Fatal(err)
		}
		var res hookResult
		if _, err := fmt.Sscanf(string(code), "%d", &res.ExitCode); err != nil {
			t.Fatalf("%s: %q", rc, code)
		}
		stdout, _ := os.ReadFile(base + ".out")
		stderr, _ := os.ReadFile(base + ".err")
		var p payload
		if in, err := os.ReadFile(base); err == nil {
			_ = json.Unmarshal(in, &p)
		}
		res.Event, res.Stdout, res.Stderr = p.HookEventName, string(stdout), string(stderr)
		out = append(out, res)
	}
	return out
}

// loadSpcstr reads what spcstr wrote: the one session's state and every log.
func (r *run) loadSpcstr(t *testing.T) {
	t.Helper()
	dirs, err := os.ReadDir(filepath.Join(r.spcstr, "sessions"))
	if err != nil {
		t.Fatalf("spcstr wrote no sessions: %v", err)
	}
	var names []string
	for _, d := range dirs {
		names = append(names, d.Name())
	}
	if len(names) != 1 || names[0] != r.sid {
		t.Fatalf(".spcstr/sessions holds %v, want exactly the session Claude Code ran (%s)", names, r.sid)
	}
	data, err := os.ReadFile(filepath.Join(r.spcstr, "sessions", r.sid, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r.state); err != nil {
		t.Fatalf("state.json: %v", err)
	}
	r.logs = map[string][]logEntry{}
	logFiles, err := filepath.Glob(filepath.Join(r.spcstr, "logs", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range logFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var entries []logEntry
		if err := json.Unmarshal(data, &entries); err != nil {
			t.Fatalf("%s is not a JSON array of log entries: %v", f, err)
		}
		r.logs[strings.TrimSuffix(filepath.Base(f), ".json")] = entries
	}
}

// rel is the project-relative form of a tool's file path (docs/state.md).
func (r *run) rel(p string) string {
	if rest, ok := strings.CutPrefix(p, r.project+"/"); ok {
		return rest
	}
	return p
}

// byEvent returns the captured payloads of one event, in capture order.
func (r *run) byEvent(event string) []payload {
	var out []payload
	for _, c := range r.captured {
		if c.Event == event {
			out = append(out, c.p)
		}
	}
	return out
}

// snake turns a CamelCase event name into its log file name, independently
// of hookio.SnakeName (PostToolUseFailure → post_tool_use_failure).
func snake(s string) string {
	var b strings.Builder
	for i, c := range s {
		if c >= 'A' && c <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}

// canonical re-encodes JSON with sorted keys, for comparing documents.
func canonical(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("canonical: %v in %s", err, tail(raw, 200))
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
