package e2e

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// checkAll compares everything spcstr recorded with what Claude Code sent.
// Every expectation is derived from captured.jsonl (and the transcript),
// never typed in by hand.
func checkAll(t *testing.T, r *run) {
	t.Run("hook_results", func(t *testing.T) { checkHookResults(t, r) })
	t.Run("files_parse", func(t *testing.T) { checkFilesParse(t, r) })
	t.Run("logs", func(t *testing.T) { checkLogs(t, r) })
	t.Run("session", func(t *testing.T) { checkSession(t, r) })
	t.Run("tools_and_files", func(t *testing.T) { checkToolsAndFiles(t, r) })
	t.Run("prompts", func(t *testing.T) { checkPrompts(t, r) })
	t.Run("agents", func(t *testing.T) { checkAgents(t, r) })
	t.Run("tokens", func(t *testing.T) { checkTokens(t, r) })
	t.Run("registry", func(t *testing.T) { checkRegistry(t, r) })
}

// checkHookResults: spcstr ran once per hook invocation, exited 0 and
// printed nothing (no gate is configured in these projects), and wrote
// nothing on stderr (which is where its own failures go).
func checkHookResults(t *testing.T, r *run) {
	if len(r.results) != len(r.captured) {
		t.Errorf("spcstr ran %d times for %d hook invocations", len(r.results), len(r.captured))
	}
	for i, res := range r.results {
		if res.ExitCode != 0 {
			t.Errorf("invocation %d (%s): exit code %d", i, res.Event, res.ExitCode)
		}
		if res.Stdout != "" {
			t.Errorf("invocation %d (%s): spcstr printed %q on stdout", i, res.Event, res.Stdout)
		}
		if res.Stderr != "" {
			t.Errorf("invocation %d (%s): spcstr wrote on stderr: %s", i, res.Event, res.Stderr)
		}
	}
}

// checkFilesParse: every JSON document under .spcstr/ parses, none was set
// aside as corrupt, and spcstr kept to the project's own .spcstr/.
func checkFilesParse(t *testing.T, r *run) {
	n := 0
	err := filepath.WalkDir(r.spcstr, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(d.Name(), ".corrupt-") {
			t.Errorf("%s: a file was set aside as corrupt", path)
		}
		if d.IsDir() || !strings.HasSuffix(path, ".json") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !json.Valid(data) {
			t.Errorf("%s does not parse as JSON: %s", path, tail(data, 200))
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Error("no JSON files under .spcstr/")
	}
	err = filepath.WalkDir(r.project, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".spcstr" && path != r.spcstr {
			t.Errorf("spcstr created %s: the project root is %s", path, r.project)
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkLogs: one log per event Claude Code sent (and no other), holding
// exactly the payloads Claude Code sent for that event.
func checkLogs(t *testing.T, r *run) {
	want := map[string][]string{} // log name → canonical payloads
	for _, c := range r.captured {
		want[snake(c.Event)] = append(want[snake(c.Event)], canonical(t, c.Payload))
	}
	if got, exp := sortedKeys(r.logs), sortedKeys(want); !reflect.DeepEqual(got, exp) {
		t.Errorf("log files %v, want one per event sent: %v", got, exp)
	}
	for name, payloads := range want {
		entries := r.logs[name]
		if len(entries) != len(payloads) {
			t.Errorf("%s.json: %d entries, Claude Code sent %d %s payloads", name, len(entries), len(payloads), name)
		}
		var got []string
		for i, e := range entries {
			if snake(e.Event) != name {
				t.Errorf("%s.json entry %d: event %q", name, i, e.Event)
			}
			if e.SessionID != r.sid {
				t.Errorf("%s.json entry %d: session_id %q, want %q", name, i, e.SessionID, r.sid)
			}
			if e.Timestamp.IsZero() {
				t.Errorf("%s.json entry %d: no timestamp", name, i)
			}
			if len(e.Truncated) > 0 {
				t.Errorf("%s.json entry %d: truncated %v (no payload here is near the cap)", name, i, e.Truncated)
			}
			if e.Outcome == nil {
				t.Errorf("%s.json entry %d: no outcome", name, i)
			} else {
				if len(e.Outcome.Answer) > 0 {
					t.Errorf("%s.json entry %d: answered %s", name, i, e.Outcome.Answer)
				}
				if e.Outcome.Error != "" {
					t.Errorf("%s.json entry %d: spcstr error %q", name, i, e.Outcome.Error)
				}
			}
			got = append(got, canonical(t, e.Input))
		}
		sort.Strings(got)
		exp := append([]string(nil), payloads...)
		sort.Strings(exp)
		if len(got) == len(exp) && !reflect.DeepEqual(got, exp) {
			for i := range got {
				if got[i] != exp[i] {
					t.Errorf("%s.json holds a payload Claude Code did not send as is:\n got  %s\n sent %s", name, tail([]byte(got[i]), 600), tail([]byte(exp[i]), 600))
					break
				}
			}
		}
	}
}

// checkSession: identity, event counts, status and end, starts and
// compactions, model, cwd, todos and tasks.
func checkSession(t *testing.T, r *run) {
	s := r.state
	if s.Version < 1 {
		t.Errorf("version %d", s.Version)
	}
	if s.SessionID != r.sid {
		t.Errorf("session_id %q, want %q", s.SessionID, r.sid)
	}
	if s.ProjectDir != r.project {
		t.Errorf("project_dir %q, want %q", s.ProjectDir, r.project)
	}
	if s.Branch != "main" {
		t.Errorf("branch %q, want main (the harness's git project)", s.Branch)
	}
	last := r.captured[len(r.captured)-1].p
	if s.TranscriptPath != last.TranscriptPath {
		t.Errorf("transcript_path %q, want %q", s.TranscriptPath, last.TranscriptPath)
	}
	if s.Cwd != last.Cwd {
		t.Errorf("cwd %q, want the last payload's %q", s.Cwd, last.Cwd)
	}

	counts := map[string]int{}
	for _, c := range r.captured {
		counts[c.Event]++
	}
	if !reflect.DeepEqual(s.EventCounts, counts) {
		t.Errorf("event_counts %v, Claude Code sent %v", s.EventCounts, counts)
	}

	ends := r.byEvent("SessionEnd")
	if len(ends) != 1 {
		t.Fatalf("Claude Code sent %d SessionEnd", len(ends))
	}
	if s.Status != "ended" || s.SessionActive {
		t.Errorf("status %q, session_active %v; want ended, false after SessionEnd", s.Status, s.SessionActive)
	}
	if s.EndReason != ends[0].Reason || s.EndReason == "" {
		t.Errorf("end_reason %q, SessionEnd said %q", s.EndReason, ends[0].Reason)
	}

	var sources []string
	compactions := 0
	model := ""
	for _, c := range r.captured {
		if c.Event == "SessionStart" {
			src := c.p.Source
			if src == "" {
				src = "startup"
			}
			sources = append(sources, src)
			if src == "compact" {
				compactions++
			}
		}
		if c.p.Model != "" {
			model = c.p.Model
		}
	}
	var gotSources []string
	for _, st := range s.Starts {
		gotSources = append(gotSources, st.Source)
	}
	if !reflect.DeepEqual(gotSources, sources) {
		t.Errorf("starts %v, SessionStart sources sent %v", gotSources, sources)
	}
	if s.Compactions != compactions {
		t.Errorf("compactions %d, want %d", s.Compactions, compactions)
	}
	if model != "" && s.Model != model {
		t.Errorf("model %q, payloads said %q", s.Model, model)
	}

	// todos: the last TodoWrite's list.
	var todos []todo
	for _, p := range r.byEvent("PostToolUse") {
		if p.ToolName == "TodoWrite" {
			todos = p.input().Todos
		}
	}
	if !reflect.DeepEqual(s.Todos, todos) {
		t.Errorf("todos %+v, last TodoWrite sent %+v", s.Todos, todos)
	}
	// tasks: every TaskCreated id, completed when TaskCompleted said so.
	wantTasks := map[string]string{}
	for _, c := range r.captured {
		switch c.Event {
		case "TaskCreated":
			if _, ok := wantTasks[c.p.TaskID]; !ok {
				wantTasks[c.p.TaskID] = ""
			}
		case "TaskCompleted":
			wantTasks[c.p.TaskID] = "completed"
		}
	}
	gotTasks := map[string]string{}
	for _, tk := range s.Tasks {
		gotTasks[tk.ID] = tk.Status
	}
	for id, st := range wantTasks {
		g, ok := gotTasks[id]
		if !ok {
			t.Errorf("task %s (TaskCreated) missing from tasks %+v", id, s.Tasks)
		} else if st != "" && g != st {
			t.Errorf("task %s status %q, want %q", id, g, st)
		}
	}

	// errors: one tool_failure per PostToolUseFailure, nothing of spcstr's own.
	failures := len(r.byEvent("PostToolUseFailure"))
	n := 0
	for _, e := range s.Errors {
		switch e.Type {
		case "tool_failure":
			n++
		case "tool_error":
		default:
			t.Errorf("unexpected error %s: %s", e.Type, e.Message)
		}
	}
	if n != failures {
		t.Errorf("%d tool_failure errors, Claude Code sent %d PostToolUseFailure", n, failures)
	}
}

// checkToolsAndFiles: tools_used counts each finished call once; files are
// the Write/Edit/Read paths, relative to the project root.
func checkToolsAndFiles(t *testing.T, r *run) {
	tools := map[string]int{}
	var want files
	add := func(list *[]string, p string) {
		p = r.rel(p)
		for _, x := range *list {
			if x == p {
				return
			}
		}
		*list = append(*list, p)
	}
	for _, c := range r.captured {
		if c.Event != "PostToolUse" && c.Event != "PostToolUseFailure" {
			continue
		}
		tools[c.p.ToolName]++
		if c.Event != "PostToolUse" {
			continue
		}
		in := c.p.input()
		switch c.p.ToolName {
		case "Write":
			if c.p.response().Type == "create" {
				add(&want.New, in.FilePath)
			} else {
				add(&want.Edited, in.FilePath)
			}
		case "Edit", "MultiEdit":
			add(&want.Edited, in.FilePath)
		case "NotebookEdit":
			add(&want.Edited, in.NotebookPath)
		case "Read":
			add(&want.Read, in.FilePath)
		}
	}
	if !reflect.DeepEqual(r.state.ToolsUsed, tools) {
		t.Errorf("tools_used %v, want (PostToolUse + PostToolUseFailure per tool) %v", r.state.ToolsUsed, tools)
	}
	got := r.state.Files
	for _, l := range []struct {
		name      string
		got, want []string
	}{{"new", got.New, want.New}, {"edited", got.Edited, want.Edited}, {"read", got.Read, want.Read}} {
		if len(l.got) == 0 && len(l.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(l.got, l.want) {
			t.Errorf("files.%s %q, want %q", l.name, l.got, l.want)
		}
		for _, p := range l.got {
			if strings.HasPrefix(p, r.project) {
				t.Errorf("files.%s: %q is not relative to the project root", l.name, p)
			}
		}
	}
}

// promptPreviewBytes is how much of a prompt state.json keeps (the README's
// state.json contract); the log keeps it whole.
const promptPreviewBytes = 500

// preview cuts a prompt as state.json does: at promptPreviewBytes, never
// inside a UTF-8 sequence.
func preview(s string) string {
	n := promptPreviewBytes
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// checkPrompts: the UserPromptSubmit prompts in order (previews), the
// injected task notifications marked as such.
func checkPrompts(t *testing.T, r *run) {
	var want []prompt
	for _, p := range r.byEvent("UserPromptSubmit") {
		kind := ""
		if strings.HasPrefix(strings.TrimSpace(p.Prompt), "<task-notification>") {
			kind = "task-notification"
		}
		want = append(want, prompt{Prompt: preview(p.Prompt), Kind: kind, PromptID: p.PromptID})
	}
	if !reflect.DeepEqual(r.state.Prompts, want) {
		t.Errorf("prompts\n got  %+v\n want %+v", r.state.Prompts, want)
	}
}

// checkAgents: one agents_history entry per Agent (or Task) call, paired
// with its agent_id, type, background flag and the tools it ran; all
// completed by the end; internal helpers (a SubagentStop with an empty
// agent_type and no SubagentStart) not counted.
func checkAgents(t *testing.T, r *run) {
	type call struct {
		toolUseID, agentID, description, subagentType string
		background                                    bool
	}
	var calls []call
	started := map[string]string{} // agent_id → agent_type from SubagentStart
	agentTools := map[string]map[string]int{}
	for _, c := range r.captured {
		p := c.p
		switch {
		case c.Event == "PreToolUse" && (p.ToolName == "Agent" || p.ToolName == "Task"):
			in := p.input()
			calls = append(calls, call{toolUseID: p.ToolUseID, description: in.Description, subagentType: in.SubagentType})
		case c.Event == "SubagentStart":
			started[p.AgentID] = p.agentType()
		}
		if (c.Event == "PostToolUse" || c.Event == "PostToolUseFailure") && p.AgentID != "" {
			if agentTools[p.AgentID] == nil {
				agentTools[p.AgentID] = map[string]int{}
			}
			agentTools[p.AgentID][p.ToolName]++
		}
	}
	for _, p := range r.byEvent("PostToolUse") {
		if p.ToolName != "Agent" && p.ToolName != "Task" {
			continue
		}
		resp := p.response()
		for i := range calls {
			if calls[i].toolUseID == p.ToolUseID {
				calls[i].agentID = resp.AgentID
				calls[i].background = resp.Status == "async_launched" || resp.IsAsync
			}
		}
	}
	hist := r.state.AgentsHistory
	if len(hist) != len(calls) {
		t.Errorf("agents_history has %d entries, Claude Code ran %d Agent calls: %+v", len(hist), len(calls), hist)
	}
	for _, c := range calls {
		var e *agent
		for i := range hist {
			if hist[i].ToolUseID == c.toolUseID {
				e = &hist[i]
			}
		}
		if e == nil {
			t.Errorf("no agents_history entry for Agent call %s", c.toolUseID)
			continue
		}
		if c.agentID == "" {
			t.Errorf("PostToolUse:Agent %s carried no agentId", c.toolUseID)
		}
		if e.AgentID != c.agentID {
			t.Errorf("agent %s: agent_id %q, want %q", c.toolUseID, e.AgentID, c.agentID)
		}
		if typ := started[c.agentID]; e.AgentType != typ || typ == "" {
			t.Errorf("agent %s: agent_type %q, SubagentStart said %q", c.agentID, e.AgentType, typ)
		}
		if e.Background != c.background {
			t.Errorf("agent %s: background %v, want %v", c.agentID, e.Background, c.background)
		}
		if e.Name != c.subagentType || e.Description != c.description {
			t.Errorf("agent %s: name %q, description %q; want %q, %q", c.agentID, e.Name, e.Description, c.subagentType, c.description)
		}
		if e.Status != "completed" || e.CompletedAt == nil {
			t.Errorf("agent %s: status %q, completed_at %v; want completed", c.agentID, e.Status, e.CompletedAt)
		}
		if want := agentTools[c.agentID]; !(len(want) == 0 && len(e.ToolsUsed) == 0) && !reflect.DeepEqual(e.ToolsUsed, want) {
			t.Errorf("agent %s: tools_used %v, its tool events say %v", c.agentID, e.ToolsUsed, want)
		}
	}
	for _, p := range r.byEvent("SubagentStop") {
		if _, ok := started[p.AgentID]; ok || p.agentType() != "" {
			continue
		}
		for _, e := range hist {
			if e.AgentID == p.AgentID {
				t.Errorf("internal helper %s (SubagentStop with no agent_type, no SubagentStart) counted as an agent", p.AgentID)
			}
		}
	}
	if len(r.state.Agents) != 0 {
		t.Errorf("agents still running at the end: %v", r.state.Agents)
	}
}

// checkTokens: the token totals equal the usage in the session's
// transcripts, the main one and every subagent one
// (<session>/subagents/agent-*.jsonl), each message counted once (the mock
// reports usage on every answer, so they are never zero once the
// transcript exists).
func checkTokens(t *testing.T, r *run) {
	type usage struct {
		Input         int64 `json:"input_tokens"`
		Output        int64 `json:"output_tokens"`
		CacheRead     int64 `json:"cache_read_input_tokens"`
		CacheCreation int64 `json:"cache_creation_input_tokens"`
	}
	byID := map[string]usage{}
	var order []string
	subs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(r.state.TranscriptPath, ".jsonl"), "subagents", "agent-*.jsonl"))
	for _, path := range append([]string{r.state.TranscriptPath}, subs...) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatalf("transcript: %v", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var l struct {
				Type    string `json:"type"`
				Message struct {
					ID    string `json:"id"`
					Model string `json:"model"`
					Usage *usage `json:"usage"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &l) != nil || l.Type != "assistant" || l.Message.Usage == nil || l.Message.Model == "<synthetic>" {
				continue
			}
			if _, ok := byID[l.Message.ID]; !ok {
				order = append(order, l.Message.ID)
			}
			byID[l.Message.ID] = *l.Message.Usage
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	var want tokens
	for _, id := range order {
		u := byID[id]
		want.Input += u.Input
		want.Output += u.Output
		want.CacheRead += u.CacheRead
		want.CacheCreation += u.CacheCreation
	}
	got := r.state.Tokens
	if got.Input <= 0 || got.Output <= 0 || got.ContextUsed <= 0 || got.ContextWindow <= 0 {
		t.Errorf("tokens %+v: want input, output, context_used and context_window > 0", got)
	}
	got.ContextUsed, got.ContextWindow = 0, 0
	if got != want {
		t.Errorf("tokens %+v, the transcript's usage sums to %+v", got, want)
	}
}

// checkRegistry: the run used its own registry, and SessionEnd removed the
// session from it.
func checkRegistry(t *testing.T, r *run) {
	data, err := os.ReadFile(filepath.Join(r.out, "registry.json"))
	if err != nil {
		t.Fatalf("SPCSTR_REGISTRY file: %v", err)
	}
	var reg struct {
		Sessions map[string]json.RawMessage `json:"sessions"`
	}
	if err := json.Unmarshal(data, &reg); err != nil {
		t.Fatalf("registry: %v", err)
	}
	if _, ok := reg.Sessions[r.sid]; ok {
		t.Errorf("session %s still registered after SessionEnd", r.sid)
	}
}
