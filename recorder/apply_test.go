package recorder

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

const root = "/home/u/proj"

// play applies payloads in order to a new session, one second apart, the
// way the recorder does (apply.go only: no files).
func play(t *testing.T, root string, payloads ...string) *state.Session {
	t.Helper()
	s := state.New("sess", root, t0)
	for i, p := range payloads {
		ev, err := hookio.Decode([]byte(p))
		if err != nil {
			t.Fatalf("payload %d: %v: %s", i, err, p)
		}
		name := ev.Name("")
		if name == "" {
			t.Fatalf("payload %d has no event name: %s", i, p)
		}
		a := &applier{ev: ev, name: name, now: t0.Add(time.Duration(i+1) * time.Second), root: root}
		a.apply(s)
	}
	return s
}

// Payload builders, in Claude Code's shapes.
func start(src string) string {
	return fmt.Sprintf(`{"hook_event_name":"SessionStart","session_id":"sess","source":%q}`, src)
}
func prompt(text string) string {
	return fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":"sess","prompt":%q}`, text)
}
func pre(tool, id, input string) string {
	return fmt.Sprintf(`{"hook_event_name":"PreToolUse","session_id":"sess","tool_name":%q,"tool_use_id":%q,"tool_input":%s}`, tool, id, input)
}
func post(tool, id, input, resp string) string {
	return fmt.Sprintf(`{"hook_event_name":"PostToolUse","session_id":"sess","tool_name":%q,"tool_use_id":%q,"tool_input":%s,"tool_response":%s}`, tool, id, input, resp)
}
func fail(tool, id, input, errText string) string {
	return fmt.Sprintf(`{"hook_event_name":"PostToolUseFailure","session_id":"sess","tool_name":%q,"tool_use_id":%q,"tool_input":%s,"error":%q,"is_interrupt":false}`, tool, id, input, errText)
}

// inAgent marks a tool payload as fired inside subagent agentID.
func inAgent(payload, agentID, agentType string) string {
	return strings.Replace(payload, `{"hook_event_name"`, fmt.Sprintf(`{"agent_id":%q,"agent_type":%q,"hook_event_name"`, agentID, agentType), 1)
}
func subStart(id, typ string) string {
	return fmt.Sprintf(`{"hook_event_name":"SubagentStart","session_id":"sess","agent_id":%q,"agent_type":%q}`, id, typ)
}
func subStop(id, typ, last string) string {
	return fmt.Sprintf(`{"hook_event_name":"SubagentStop","session_id":"sess","agent_id":%q,"agent_type":%q,"stop_hook_active":false,"last_assistant_message":%q}`, id, typ, last)
}
func agentIn(typ, desc string, bg bool) string {
	return fmt.Sprintf(`{"description":%q,"prompt":"do it","subagent_type":%q,"run_in_background":%v}`, desc, typ, bg)
}
func agentDone(id, typ, text string) string {
	return fmt.Sprintf(`{"status":"completed","agentId":%q,"agentType":%q,"content":[{"type":"text","text":%q}],"totalDurationMs":4200,"totalTokens":1234,"totalToolUseCount":2}`, id, typ, text)
}
func agentAsync(id string) string {
	return fmt.Sprintf(`{"isAsync":true,"status":"async_launched","agentId":%q,"description":"d","prompt":"p","outputFile":"/tmp/o"}`, id)
}
func file(p string) string { return fmt.Sprintf(`{"file_path":%q}`, p) }

const (
	stop       = `{"hook_event_name":"Stop","session_id":"sess","stop_hook_active":false}`
	sessionEnd = `{"hook_event_name":"SessionEnd","session_id":"sess","reason":"prompt_input_exit"}`
)

func expect(cond bool, format string, args ...any) string {
	if cond {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

func files(list []string) string { return strings.Join(list, ",") }

func TestApplySessionStartNeverWipes(t *testing.T) {
	history := []string{
		start("startup"),
		prompt("first"),
		pre("Read", "t1", file(root+"/a.go")),
		post("Read", "t1", file(root+"/a.go"), `{"type":"text","file":{"filePath":"/home/u/proj/a.go"}}`),
		fail("Bash", "t2", `{"command":"false"}`, "exit 1"),
		`{"hook_event_name":"Notification","session_id":"sess","message":"hi","notification_type":"auth_success"}`,
		stop,
	}
	for _, src := range []string{"resume", "clear", "compact", "startup", ""} {
		t.Run("source "+src, func(t *testing.T) {
			s := play(t, root, append(history, start(src))...)
			wantSrc := src
			if wantSrc == "" {
				wantSrc = "startup"
			}
			for _, msg := range []string{
				expect(len(s.Prompts) == 1 && s.Prompts[0].Prompt == "first", "prompts wiped: %+v", s.Prompts),
				expect(files(s.Files.Read) == "a.go", "files wiped: %+v", s.Files),
				expect(s.ToolsUsed["Read"] == 1 && s.ToolsUsed["Bash"] == 1, "tools wiped: %v", s.ToolsUsed),
				expect(len(s.Errors) == 1, "errors wiped: %v", s.Errors),
				expect(len(s.Notifications) == 1, "notifications wiped"),
				expect(len(s.Starts) == 2 && s.Starts[0].Source == "startup" && s.Starts[1].Source == wantSrc, "starts = %+v", s.Starts),
				expect(s.Starts[1].At.Equal(t0.Add(8*time.Second)), "start time %v", s.Starts[1].At),
				expect(s.SessionActive, "not active after SessionStart"),
				expect(s.Status == state.StatusWaiting, "status %q", s.Status),
				expect((src == "compact") == (s.Compactions == 1), "compactions = %d", s.Compactions),
			} {
				if msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

func TestApplyCompactKeepsStatus(t *testing.T) {
	s := play(t, root, start("startup"), prompt("go"),
		`{"hook_event_name":"PreCompact","session_id":"sess","trigger":"auto","custom_instructions":null}`,
		start("compact"))
	if s.Status != state.StatusWorking || s.Compactions != 1 {
		t.Errorf("after auto-compact mid-turn: status %q, compactions %d", s.Status, s.Compactions)
	}
}

func TestApplyFiles(t *testing.T) {
	write := func(p, typ string) string {
		return post("Write", "w", file(p), fmt.Sprintf(`{"type":%q,"filePath":%q}`, typ, p))
	}
	edit := func(tool, p string) string { return post(tool, "e", file(p), `{"filePath":"x"}`) }
	read := func(p string) string { return post("Read", "r", file(p), `{"type":"text"}`) }
	tests := []struct {
		name                string
		root                string
		events              []string
		newF, edited, readF string
	}{
		{"write create is new, update is edited", root,
			[]string{write(root+"/n.go", "create"), write(root+"/u.go", "update")}, "n.go", "u.go", ""},
		{"write without type is edited", root, []string{post("Write", "w", file(root+"/x.go"), `{"filePath":"x"}`)}, "", "x.go", ""},
		{"edit tools", root, []string{edit("Edit", root+"/a.go"), edit("MultiEdit", root+"/b.go"),
			post("NotebookEdit", "n", `{"notebook_path":"/home/u/proj/c.ipynb"}`, `{}`)}, "", "a.go,b.go,c.ipynb", ""},
		{"each path once, first-seen order", root, []string{read(root + "/b.go"), read(root + "/a.go"), read(root + "/b.go"),
			edit("Edit", root+"/a.go"), edit("Edit", root+"/a.go"), read(root + "/a.go")}, "", "a.go", "b.go,a.go"},
		{"a new file edited later is new and edited", root,
			[]string{write(root+"/n.go", "create"), edit("Edit", root+"/n.go"), write(root+"/n.go", "update")}, "n.go", "n.go", ""},
		{"nested paths", root, []string{read(root + "/src/pkg/x.go")}, "", "", "src/pkg/x.go"},
		{"outside the root stays absolute", root, []string{read("/etc/hosts"), read("/home/u/projector/x")}, "", "", "/etc/hosts,/home/u/projector/x"},
		{"unclean paths are cleaned", root, []string{read(root + "/src/../a.go"), read(root + "//b.go"), read(root + "/../other/c.go")},
			"", "", "a.go,b.go,/home/u/other/c.go"},
		{"the root itself", root, []string{read(root)}, "", "", "."},
		{"relative paths kept", root, []string{read("rel/x.go")}, "", "", "rel/x.go"},
		{"empty or missing path ignored", root, []string{read(""), post("Read", "r", `{}`, `{}`), post("Read", "r", `"str"`, `{}`)}, "", "", ""},
		{"Linux paths are case-sensitive", "/home/u/Proj", []string{read("/home/u/proj/x.go"), read("/home/u/Proj/y.go")},
			"", "", "/home/u/proj/x.go,y.go"},
		{"Windows root and paths", `C:\Users\me\proj`, []string{
			read(`C:\Users\me\proj\src\a.go`),
			read(`c:\users\ME\PROJ\b.go`),
			read(`C:/Users/me/proj/c.go`),
			read(`/c/Users/me/proj/d.go`),
			read(`D:\Users\me\proj\e.go`),
			read(`C:\Users\me\project\f.go`),
		}, "", "", `src/a.go,b.go,c.go,d.go,D:\Users\me\proj\e.go,C:\Users\me\project\f.go`},
		{"Git Bash root", `/c/Users/me/proj`, []string{read(`C:\Users\me\proj\src\a.go`), read(`/c/Users/me/proj/b.go`)}, "", "", "src/a.go,b.go"},
		{"Windows paths deduplicated across spellings", `C:\p`, []string{read(`C:\p\a.go`), read(`/c/p/a.go`), read(`c:/p/a.go`)}, "", "", "a.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := play(t, tt.root, tt.events...)
			if got := files(s.Files.New); got != tt.newF {
				t.Errorf("new = %q, want %q", got, tt.newF)
			}
			if got := files(s.Files.Edited); got != tt.edited {
				t.Errorf("edited = %q, want %q", got, tt.edited)
			}
			if got := files(s.Files.Read); got != tt.readF {
				t.Errorf("read = %q, want %q", got, tt.readF)
			}
		})
	}
}

func TestApplyToolsCountedOnce(t *testing.T) {
	s := play(t, root,
		pre("Bash", "1", `{"command":"ls"}`), post("Bash", "1", `{"command":"ls"}`, `{"stdout":"","stderr":""}`),
		pre("Bash", "2", `{"command":"false"}`), fail("Bash", "2", `{"command":"false"}`, "Exit code 1"),
		pre("Read", "3", file(root+"/a")), // denied: no Post
		`{"hook_event_name":"PermissionRequest","session_id":"sess","tool_name":"Write","tool_input":{}}`,
		`{"hook_event_name":"PostToolBatch","session_id":"sess","tool_calls":[{"tool_name":"Bash"}]}`,
		post("mcp__github__get_issue", "4", `{}`, `[{"type":"text","text":"ok"}]`),
		`{"hook_event_name":"PostToolUse","session_id":"sess"}`,
	)
	want := map[string]int{"Bash": 2, "mcp__github__get_issue": 1, "unknown": 1}
	if fmt.Sprint(s.ToolsUsed) != fmt.Sprint(want) {
		t.Errorf("tools_used = %v, want %v", s.ToolsUsed, want)
	}
	if s.ToolCalls() != 4 {
		t.Errorf("ToolCalls = %d", s.ToolCalls())
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		name   string
		events []string
		typ    string
		msg    string
		ctx    map[string]any
	}{
		{"PostToolUseFailure", []string{fail("Read", "t9", file(root+"/missing.go"), "File does not exist.")},
			state.ErrorToolFailure, "File does not exist.",
			map[string]any{"tool": "Read", "tool_use_id": "t9", "file_path": "missing.go", "is_interrupt": false}},
		{"PostToolUseFailure without text", []string{`{"hook_event_name":"PostToolUseFailure","session_id":"sess","tool_name":"Bash","is_interrupt":true}`},
			state.ErrorToolFailure, "tool failed", map[string]any{"tool": "Bash", "is_interrupt": true}},
		{"string error response", []string{post("Bash", "b", `{}`, `"Error: permission denied"`)},
			state.ErrorTool, "Error: permission denied", map[string]any{"tool": "Bash", "tool_use_id": "b"}},
		{"error field", []string{post("TaskUpdate", "u", `{"taskId":"9","status":"completed"}`, `{"success":false,"error":"Task not found"}`)},
			state.ErrorTool, "Task not found", nil},
		{"MCP is_error", []string{post("mcp__x__y", "m", `{}`, `{"is_error":true,"content":[{"type":"text","text":"rate limited"}]}`)},
			state.ErrorTool, "rate limited", nil},
		{"inside a subagent", []string{inAgent(fail("Bash", "b", `{}`, "boom"), "ag1", "x")},
			state.ErrorToolFailure, "boom", map[string]any{"tool": "Bash", "tool_use_id": "b", "agent_id": "ag1", "is_interrupt": false}},
		{"StopFailure", []string{`{"hook_event_name":"StopFailure","session_id":"sess","error":"rate_limit","error_details":"429 Too Many Requests"}`},
			state.ErrorStopFailure, "rate_limit: 429 Too Many Requests", nil},
		{"StopFailure bare", []string{`{"hook_event_name":"StopFailure","session_id":"sess"}`},
			state.ErrorStopFailure, "turn ended by an API error", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := play(t, root, tt.events...)
			if len(s.Errors) != 1 {
				t.Fatalf("errors = %+v", s.Errors)
			}
			e := s.Errors[0]
			if e.Type != tt.typ || e.Message != tt.msg || e.Timestamp.IsZero() {
				t.Errorf("error = %+v, want type %q message %q", e, tt.typ, tt.msg)
			}
			if tt.ctx != nil && fmt.Sprint(e.Context) != fmt.Sprint(tt.ctx) {
				t.Errorf("context = %v, want %v", e.Context, tt.ctx)
			}
		})
	}
	// Not errors: stderr output, interrupted flag, successful responses.
	s := play(t, root,
		post("Bash", "1", `{}`, `{"stdout":"","stderr":"warning: deprecated","interrupted":false}`),
		post("Skill", "2", `{}`, `{"success":true,"commandName":"x"}`),
		post("Write", "3", file(root+"/x"), `{"type":"create","filePath":"x","content":"Error: this is file content"}`),
	)
	if len(s.Errors) != 0 {
		t.Errorf("false errors: %+v", s.Errors)
	}
	// Long error text is bounded.
	s = play(t, root, fail("Bash", "1", `{}`, strings.Repeat("e", 100_000)))
	if len(s.Errors[0].Message) > maxErrorText {
		t.Errorf("error text %d bytes", len(s.Errors[0].Message))
	}
}

func agentByID(s *state.Session, id string) *state.Agent { return s.FindAgent(id) }

func TestApplyForegroundAgent(t *testing.T) {
	for _, tool := range []string{"Agent", "Task"} {
		t.Run(tool, func(t *testing.T) {
			in := agentIn("reviewer", "Review README", false)
			s := play(t, root,
				prompt("review it"),
				pre(tool, "tu1", in),
				subStart("a1", "reviewer"),
				inAgent(pre("Read", "r1", file(root+"/README.md")), "a1", "reviewer"),
				inAgent(post("Read", "r1", file(root+"/README.md"), `{"type":"text"}`), "a1", "reviewer"),
				inAgent(post("Grep", "r2", `{}`, `{}`), "a1", "reviewer"),
				subStop("a1", "reviewer", "All good. REVIEW_APPROVED"),
			)
			if len(s.AgentsHistory) != 1 {
				t.Fatalf("history = %+v", s.AgentsHistory)
			}
			a := s.AgentsHistory[0]
			if a.AgentID != "a1" || a.Name != "reviewer" || a.AgentType != "reviewer" || a.ToolUseID != "tu1" ||
				a.Description != "Review README" || a.Background || !a.Running() || a.Status != state.AgentRunning {
				t.Fatalf("before PostToolUse: %+v", a)
			}
			if fmt.Sprint(s.Agents) != "[reviewer]" {
				t.Errorf("agents = %v", s.Agents)
			}
			if a.ToolsUsed["Read"] != 1 || a.ToolsUsed["Grep"] != 1 || s.ToolsUsed["Read"] != 1 {
				t.Errorf("tools: agent %v, session %v", a.ToolsUsed, s.ToolsUsed)
			}
			if a.Result != "PASS" || a.Marker != "REVIEW_APPROVED" {
				t.Errorf("marker from SubagentStop: %q %q", a.Result, a.Marker)
			}
			// Subagent tool events do not change the main session's status.
			if s.Status != state.StatusWorking {
				t.Errorf("status = %q", s.Status)
			}
			s2 := play(t, root,
				prompt("review it"), pre(tool, "tu1", in), subStart("a1", "reviewer"),
				subStop("a1", "reviewer", "REVIEW_APPROVED"),
				post(tool, "tu1", in, agentDone("a1", "reviewer", "Verdict: REVIEW_REJECTED")),
			)
			a = s2.AgentsHistory[0]
			if a.Running() || a.Status != state.AgentCompleted || a.CompletedAt == nil || !a.CompletedAt.Equal(t0.Add(5*time.Second)) {
				t.Errorf("after PostToolUse: %+v", a)
			}
			if a.Result != "FAIL" || a.Marker != "REVIEW_REJECTED" || a.DurationMS != 4200 || a.TotalTokens != 1234 {
				t.Errorf("result from the response: %+v", a)
			}
			if len(s2.Agents) != 0 || s2.ToolsUsed[tool] != 1 {
				t.Errorf("agents %v, tools %v", s2.Agents, s2.ToolsUsed)
			}
		})
	}
}

// Claude Code 1.0.x: Task without agent ids anywhere.
func TestApplyLegacyTask(t *testing.T) {
	in := agentIn("general-purpose", "Survey", false)
	s := play(t, root,
		pre("Task", "", in),
		`{"hook_event_name":"SubagentStop","session_id":"sess","stop_hook_active":false}`,
		post("Task", "", in, `{"content":[{"type":"text","text":"done"}],"totalDurationMs":900,"totalTokens":50,"totalToolUseCount":1}`),
	)
	if len(s.AgentsHistory) != 1 || s.AgentsHistory[0].Running() || s.AgentsHistory[0].DurationMS != 900 {
		t.Errorf("history = %+v", s.AgentsHistory)
	}
}

func TestApplyBackgroundAgent(t *testing.T) {
	for _, tc := range []struct{ tool, in string }{
		{"Agent", agentIn("builder", "Build", true)},
		{"Task", agentIn("builder", "Build", true)},
		{"Agent", agentIn("builder", "Build (background by default)", false)},
	} {
		t.Run(tc.tool+" "+tc.in, func(t *testing.T) {
			s := play(t, root,
				prompt("build in the background"),
				pre(tc.tool, "tu1", tc.in),
				subStart("bg1", "builder"),
				post(tc.tool, "tu1", tc.in, agentAsync("bg1")),
				inAgent(post("Bash", "b1", `{}`, `{}`), "bg1", "builder"),
				stop,
			)
			a := agentByID(s, "bg1")
			if a == nil || !a.Background || !a.Running() || fmt.Sprint(s.Agents) != "[builder]" {
				t.Fatalf("after launch and Stop: %+v, agents %v", a, s.Agents)
			}
			if s.Status != state.StatusWaiting {
				t.Errorf("status = %q", s.Status)
			}
			s = play(t, root,
				prompt("build in the background"),
				pre(tc.tool, "tu1", tc.in),
				subStart("bg1", "builder"),
				post(tc.tool, "tu1", tc.in, agentAsync("bg1")),
				stop,
				subStop("bg1", "builder", "TESTS_PASSED"),
				prompt("<task-notification>\n<task-id>bg1</task-id>\n<status>completed</status>\n</task-notification>"),
			)
			a = agentByID(s, "bg1")
			if a == nil || a.Running() || a.Status != state.AgentCompleted || a.Result != "PASS" || len(s.Agents) != 0 {
				t.Fatalf("after SubagentStop: %+v, agents %v", a, s.Agents)
			}
			if !a.CompletedAt.Equal(t0.Add(6 * time.Second)) {
				t.Errorf("completed at %v", a.CompletedAt)
			}
			if len(s.Prompts) != 2 || s.Prompts[1].Kind != state.PromptKindTaskNotification || s.Prompts[0].Kind != "" {
				t.Errorf("prompts = %+v", s.Prompts)
			}
		})
	}
}

func TestApplyInternalHelperSubagentStop(t *testing.T) {
	s := play(t, root,
		prompt("x"),
		subStop("helper1", "", "summary of the conversation"),
		`{"hook_event_name":"SubagentStop","session_id":"sess","agent_id":"helper2","stop_hook_active":false}`,
	)
	if len(s.AgentsHistory) != 0 || len(s.Agents) != 0 || s.EventCounts["SubagentStop"] != 2 {
		t.Errorf("helper counted: history %+v, agents %v, counts %v", s.AgentsHistory, s.Agents, s.EventCounts)
	}
	// A helper finishing while a real agent runs leaves the agent alone.
	in := agentIn("reviewer", "r", false)
	s = play(t, root, pre("Agent", "tu1", in), subStart("a1", "reviewer"), subStop("h", "", "recap"))
	if len(s.AgentsHistory) != 1 || !s.AgentsHistory[0].Running() || s.AgentsHistory[0].AgentID != "a1" {
		t.Errorf("real agent disturbed: %+v", s.AgentsHistory)
	}
}

func TestApplyAgentPairing(t *testing.T) {
	in := agentIn("Explore", "e", false)
	// Two parallel agents of one type: SubagentStart pairs by order, the
	// responses (authoritative) cross them; each ends with its own id.
	s := play(t, root,
		pre("Agent", "tu1", in), pre("Agent", "tu2", in),
		subStart("x1", "Explore"), subStart("x2", "Explore"),
		inAgent(post("Read", "r", file(root+"/a"), `{}`), "x2", "Explore"),
		post("Agent", "tu1", in, agentDone("x2", "Explore", "one")),
		post("Agent", "tu2", in, agentDone("x1", "Explore", "two")),
	)
	if len(s.AgentsHistory) != 2 {
		t.Fatalf("history = %+v", s.AgentsHistory)
	}
	for _, a := range s.AgentsHistory {
		if a.Running() {
			t.Errorf("still running: %+v", a)
		}
	}
	if s.AgentsHistory[0].AgentID != "x2" || s.AgentsHistory[1].AgentID != "x1" {
		t.Errorf("ids not taken from the responses: %q %q", s.AgentsHistory[0].AgentID, s.AgentsHistory[1].AgentID)
	}
	// A subagent spawned without a visible Agent call (by another subagent).
	s = play(t, root, subStart("n1", "researcher"), inAgent(post("Read", "r", file(root+"/z"), `{}`), "n1", "researcher"), subStop("n1", "researcher", ""))
	if len(s.AgentsHistory) != 1 || s.AgentsHistory[0].Running() || s.AgentsHistory[0].ToolsUsed["Read"] != 1 {
		t.Errorf("nested agent: %+v", s.AgentsHistory)
	}
	// PostToolUse without a PreToolUse (hook registered late): recorded then.
	s = play(t, root, `{"hook_event_name":"PostToolUse","session_id":"sess","tool_name":"Agent","tool_use_id":"tu9","duration_ms":3000,"tool_input":`+in+`,"tool_response":`+agentDone("z", "Explore", "ok")+`}`)
	if len(s.AgentsHistory) != 1 || s.AgentsHistory[0].Running() || !s.AgentsHistory[0].StartedAt.Equal(t0.Add(-2*time.Second)) {
		t.Errorf("late agent: %+v", s.AgentsHistory)
	}
	// A failed Agent call.
	s = play(t, root, pre("Agent", "tu1", in), fail("Agent", "tu1", in, "agent crashed"))
	if a := s.AgentsHistory[0]; a.Running() || a.Status != state.AgentFailed || len(s.Agents) != 0 {
		t.Errorf("failed agent: %+v", a)
	}
	// A foreground agent whose PostToolUse never came is done at Stop.
	s = play(t, root, pre("Agent", "tu1", in), subStart("f1", "Explore"), stop)
	if a := s.AgentsHistory[0]; a.Running() {
		t.Errorf("foreground agent running after Stop: %+v", a)
	}
	// The same PreToolUse twice (retried hook) records one agent.
	s = play(t, root, pre("Agent", "tu1", in), pre("Agent", "tu1", in))
	if len(s.AgentsHistory) != 1 {
		t.Errorf("duplicate PreToolUse: %+v", s.AgentsHistory)
	}
}

func TestApplyStatus(t *testing.T) {
	notif := func(typ, msg string) string {
		return fmt.Sprintf(`{"hook_event_name":"Notification","session_id":"sess","notification_type":%q,"message":%q}`, typ, msg)
	}
	tests := []struct {
		name   string
		events []string
		status string
		active bool
		reason string
	}{
		{"new session waits", []string{start("startup")}, state.StatusWaiting, true, ""},
		{"prompt works", []string{start("startup"), prompt("x")}, state.StatusWorking, true, ""},
		{"tool event works", []string{pre("Bash", "1", `{}`)}, state.StatusWorking, true, ""},
		{"Stop waits", []string{prompt("x"), stop}, state.StatusWaiting, false, ""},
		{"StopFailure waits", []string{prompt("x"), `{"hook_event_name":"StopFailure","session_id":"sess","error":"x"}`}, state.StatusWaiting, false, ""},
		{"permission prompt", []string{prompt("x"), notif("permission_prompt", "Claude needs your permission to use Bash")}, state.StatusNeedsInput, true, ""},
		{"idle prompt", []string{prompt("x"), stop, notif("idle_prompt", "Claude is waiting for your input")}, state.StatusNeedsInput, false, ""},
		{"untyped permission message", []string{prompt("x"), notif("", "Claude needs your permission to use Write")}, state.StatusNeedsInput, true, ""},
		{"other notification", []string{prompt("x"), notif("auth_success", "Logged in")}, state.StatusWorking, true, ""},
		{"PermissionRequest", []string{prompt("x"), `{"hook_event_name":"PermissionRequest","session_id":"sess","tool_name":"Bash"}`}, state.StatusNeedsInput, true, ""},
		{"answered permission: working again", []string{prompt("x"), `{"hook_event_name":"PermissionRequest","session_id":"sess"}`, post("Bash", "1", `{}`, `{}`)}, state.StatusWorking, true, ""},
		{"subagent tool does not wake a waiting session", []string{prompt("x"), stop, inAgent(post("Bash", "1", `{}`, `{}`), "bg", "b")}, state.StatusWaiting, false, ""},
		{"SessionEnd", []string{prompt("x"), stop, sessionEnd}, state.StatusEnded, false, "prompt_input_exit"},
		{"SessionEnd without reason", []string{`{"hook_event_name":"SessionEnd","session_id":"sess"}`}, state.StatusEnded, false, "other"},
		{"resumed after end", []string{prompt("x"), sessionEnd, start("resume")}, state.StatusWaiting, true, ""},
		{"late event after end", []string{sessionEnd, `{"hook_event_name":"Notification","session_id":"sess","message":"m"}`}, state.StatusWaiting, false, "prompt_input_exit"},
		{"prompt after end", []string{sessionEnd, prompt("again")}, state.StatusWorking, true, "prompt_input_exit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := play(t, root, tt.events...)
			if s.Status != tt.status || s.SessionActive != tt.active || s.EndReason != tt.reason {
				t.Errorf("status %q active %v reason %q, want %q %v %q", s.Status, s.SessionActive, s.EndReason, tt.status, tt.active, tt.reason)
			}
		})
	}
}

func TestApplyPromptsAndNotifications(t *testing.T) {
	s := play(t, root,
		prompt("short"),
		prompt("  <task-notification><task-id>x</task-id></task-notification>"),
		prompt(strings.Repeat("é", state.PromptPreviewBytes)),
		`{"hook_event_name":"UserPromptSubmit","session_id":"sess","prompt":"with id","prompt_id":"p-1"}`,
		`{"hook_event_name":"Notification","session_id":"sess","message":"`+strings.Repeat("m", 10_000)+`","notification_type":"idle_prompt","title":"T"}`,
	)
	if len(s.Prompts) != 4 {
		t.Fatalf("prompts = %+v", s.Prompts)
	}
	if s.Prompts[0].Prompt != "short" || s.Prompts[0].Truncated || !s.Prompts[0].Timestamp.Equal(t0.Add(time.Second)) {
		t.Errorf("prompt 0 = %+v", s.Prompts[0])
	}
	if s.Prompts[1].Kind != state.PromptKindTaskNotification {
		t.Errorf("task notification kind: %+v", s.Prompts[1])
	}
	if p := s.Prompts[2]; !p.Truncated || len(p.Prompt) > state.PromptPreviewBytes || p.Prompt != strings.Repeat("é", state.PromptPreviewBytes/2) {
		t.Errorf("prompt preview = %+v", p)
	}
	if s.Prompts[3].PromptID != "p-1" {
		t.Errorf("prompt id: %+v", s.Prompts[3])
	}
	n := s.Notifications[0]
	if len(s.Notifications) != 1 || n.Type != "idle_prompt" || n.Title != "T" || len(n.Message) > maxNoteText {
		t.Errorf("notification = %+v", n)
	}
}

func TestApplyTodosAndTasks(t *testing.T) {
	s := play(t, root,
		post("TodoWrite", "1", `{"todos":[{"content":"a","status":"pending","activeForm":"Doing a"},{"content":"b","status":"pending"}]}`, `{}`),
		post("TodoWrite", "2", `{"todos":[{"content":"a","status":"completed"},{"content":"b","status":"in_progress"}]}`, `{}`),
		`{"hook_event_name":"TaskCreated","session_id":"sess","task_id":"1","task_subject":"Write tests","task_description":"all of them"}`,
		post("TaskCreate", "3", `{"subject":"Write tests","description":"all of them"}`, `{"task":{"id":"1","subject":"Write tests"}}`),
		post("TaskCreate", "4", `{"subject":"Ship"}`, `{"task":{"id":"2"}}`),
		post("TaskUpdate", "5", `{"taskId":"1","status":"in_progress"}`, `{"success":true,"taskId":"1"}`),
		post("TaskUpdate", "6", `{"taskId":"2","owner":"x"}`, `{"success":true,"taskId":"2"}`),
		`{"hook_event_name":"TaskCompleted","session_id":"sess","task_id":"1","task_subject":"Write tests"}`,
	)
	if fmt.Sprint(s.Todos) != "[{a completed } {b in_progress }]" {
		t.Errorf("todos = %v", s.Todos)
	}
	if len(s.Tasks) != 2 {
		t.Fatalf("tasks = %+v", s.Tasks)
	}
	if t1 := s.Tasks[0]; t1.ID != "1" || t1.Subject != "Write tests" || t1.Description != "all of them" || t1.Status != "completed" || !t1.UpdatedAt.Equal(t0.Add(8*time.Second)) {
		t.Errorf("task 1 = %+v", t1)
	}
	if t2 := s.Tasks[1]; t2.ID != "2" || t2.Subject != "Ship" || t2.Status != "pending" {
		t.Errorf("task 2 = %+v", t2)
	}
}

func TestApplySessionFields(t *testing.T) {
	s := play(t, root,
		`{"hook_event_name":"SessionStart","session_id":"sess","source":"startup","cwd":"/home/u/proj","transcript_path":"/t.jsonl","model":"claude-sonnet-4-6","permission_mode":"default"}`,
		`{"hook_event_name":"UserPromptSubmit","session_id":"sess","prompt":"x","cwd":"/home/u/proj/sub","permission_mode":"plan"}`,
		`{"hook_event_name":"CwdChanged","session_id":"sess","old_cwd":"/home/u/proj/sub","new_cwd":"/home/u/proj/other"}`,
		`{"hook_event_name":"BrandNewEvent","session_id":"sess","whatever":[1]}`,
	)
	if s.Cwd != "/home/u/proj/other" || s.TranscriptPath != "/t.jsonl" || s.Model != "claude-sonnet-4-6" || s.PermissionMode != "plan" {
		t.Errorf("fields: cwd %q transcript %q model %q mode %q", s.Cwd, s.TranscriptPath, s.Model, s.PermissionMode)
	}
	want := map[string]int{"SessionStart": 1, "UserPromptSubmit": 1, "CwdChanged": 1, "BrandNewEvent": 1}
	if fmt.Sprint(s.EventCounts) != fmt.Sprint(want) || s.LastEvent != "BrandNewEvent" || !s.LastEventAt.Equal(t0.Add(4*time.Second)) {
		t.Errorf("event counts %v, last %q at %v", s.EventCounts, s.LastEvent, s.LastEventAt)
	}
	if len(s.Activity) != 1 || s.Activity[0].Count != 4 || !s.UpdatedAt.Equal(t0.Add(4*time.Second)) {
		t.Errorf("activity %v, updated %v", s.Activity, s.UpdatedAt)
	}
}

func TestCountActivityBounded(t *testing.T) {
	s := state.New("x", "/", t0)
	for i := 0; i < 500; i++ {
		countActivity(s, t0.Add(time.Duration(i)*time.Minute))
		countActivity(s, t0.Add(time.Duration(i)*time.Minute+time.Second))
	}
	if len(s.Activity) != activityKeep || s.Activity[activityKeep-1].Count != 2 ||
		s.Activity[activityKeep-1].Minute != t0.Add(499*time.Minute).Unix()/60 {
		t.Errorf("activity: %d minutes, last %+v", len(s.Activity), s.Activity[len(s.Activity)-1])
	}
}
