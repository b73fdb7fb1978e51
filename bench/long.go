//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/recorder"
)

// The P2-long workload: one long, heavy session, then PostToolUse hooks.
const (
	longPrompts       = 400
	longPromptBytes   = 3 << 10
	longFiles         = 2000
	longAgents        = 150
	longFailures      = 200
	longErrorBytes    = 1 << 10
	longNotifications = 100
)

// longAgentMessages is how many API messages each P2-long agent's own
// transcript holds.
const longAgentMessages = 20

// longEvent is one event of the P2-long session and the transcript lines
// Claude Code would have written before sending it: main to the main
// transcript, agent to file (a subagent transcript).
type longEvent struct {
	payload     []byte
	main, agent []byte
	file        string
}

// longSession builds the P2-long session's events, in a plausible order:
// each prompt is followed by its share of reads, agents, failures and
// notifications. Its transcripts are real: one assistant message per
// tool call in the main transcript, and each agent's messages in its own
// file (<transcript dir>/<session>/subagents/agent-<id>.jsonl).
func longSession(root, session, transcript string) []longEvent {
	var out []longEvent
	var mainBuf, agentBuf []byte
	agentFile := ""
	msg := 0
	add := func(m map[string]any) {
		m["session_id"], m["cwd"] = session, root
		m["transcript_path"] = transcript
		b, _ := json.Marshal(m)
		out = append(out, longEvent{payload: b, main: mainBuf, agent: agentBuf, file: agentFile})
		mainBuf, agentBuf, agentFile = nil, nil, ""
	}
	call := func(tool string) { // the assistant message that made a tool call
		msg++
		mainBuf = append(mainBuf, assistantLine(fmt.Sprintf("msg_main_%06d", msg), "claude-opus-5-5", msg, tool, false)...)
	}
	text := func(n, i int) string {
		s := fmt.Sprintf("item %d: ", i) + strings.Repeat("lorem ipsum dolor sit amet ", n/27+1)
		return s[:n]
	}
	add(map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	file, agent, fail, note := 0, 0, 0, 0
	for p := 0; p < longPrompts; p++ {
		add(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": text(longPromptBytes, p)})
		for ; file < (p+1)*longFiles/longPrompts; file++ {
			path := filepath.Join(root, "src", fmt.Sprintf("pkg%03d", file%97), fmt.Sprintf("file_%05d.go", file))
			call("Read")
			add(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_use_id": fmt.Sprintf("toolu_r%05d", file),
				"tool_input": map[string]any{"file_path": path}})
			add(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_use_id": fmt.Sprintf("toolu_r%05d", file),
				"tool_input": map[string]any{"file_path": path}, "tool_response": map[string]any{"type": "text"}})
		}
		for ; agent < (p+1)*longAgents/longPrompts; agent++ {
			id, aid := fmt.Sprintf("toolu_a%05d", agent), fmt.Sprintf("a%015d", agent)
			in := map[string]any{"subagent_type": "Explore", "description": fmt.Sprintf("explore part %d", agent), "prompt": "look around"}
			call("Agent")
			add(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_use_id": id, "tool_input": in})
			apath := filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "subagents", "agent-"+aid+".jsonl")
			add(map[string]any{"hook_event_name": "SubagentStart", "agent_id": aid, "agent_type": "Explore", "agent_transcript_path": apath})
			for k := 0; k < longAgentMessages; k++ {
				agentBuf = append(agentBuf, assistantLine(fmt.Sprintf("msg_%s_%02d", aid, k), "claude-haiku-5-5", k, "Read", true)...)
			}
			agentFile = apath
			add(map[string]any{"hook_event_name": "SubagentStop", "agent_id": aid, "agent_type": "Explore", "last_assistant_message": "done",
				"agent_transcript_path": apath})
			add(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Agent", "tool_use_id": id, "tool_input": in,
				"tool_response": map[string]any{"status": "completed", "agentId": aid, "agentType": "Explore", "totalDurationMs": 1200, "totalTokens": 5000,
					"content": []any{map[string]any{"type": "text", "text": "found it"}}}})
		}
		for ; fail < (p+1)*longFailures/longPrompts; fail++ {
			call("Bash")
			add(map[string]any{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": fmt.Sprintf("toolu_f%05d", fail),
				"tool_input": map[string]any{"command": "make test"}, "error": text(longErrorBytes, fail)})
		}
		for ; note < (p+1)*longNotifications/longPrompts; note++ {
			add(map[string]any{"hook_event_name": "Notification", "message": "Claude is waiting for your input", "notification_type": "idle_prompt"})
		}
		add(map[string]any{"hook_event_name": "Stop"})
	}
	return out
}

// assistantLine is one assistant message of a transcript as Claude Code
// 2.1.330 writes it (a tool_use block with its usage), about 1 KiB.
func assistantLine(id, model string, n int, tool string, side bool) []byte {
	line := map[string]any{
		"parentUuid": fmt.Sprintf("p-%s", id), "isSidechain": side, "type": "assistant", "uuid": "u-" + id,
		"timestamp": "2026-11-27T12:00:00.000Z", "sessionId": "bench", "version": "2.1.330", "cwd": "/bench",
		"message": map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": tool,
				"input": map[string]any{"description": strings.Repeat("bench ", 60)}}},
			"stop_reason": "tool_use",
			"usage": map[string]any{"input_tokens": 3 + n%7, "output_tokens": 40 + n%50, "cache_read_input_tokens": 20000 + n,
				"cache_creation_input_tokens": 300 + n%100,
				"cache_creation":              map[string]any{"ephemeral_1h_input_tokens": n % 100, "ephemeral_5m_input_tokens": 300},
				"service_tier":                "standard"}},
	}
	b, _ := json.Marshal(line)
	return append(b, '\n')
}

// appendTo appends data to the file at path (made with its folder).
func appendTo(path string, data []byte) error {
	if len(data) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// measuredPost is the i-th measured PostToolUse: reads of new files and
// commands, alternating, the same for both sessions.
func measuredPost(root, session, transcript string, i int) []byte {
	m := map[string]any{"hook_event_name": "PostToolUse", "session_id": session, "cwd": root, "transcript_path": transcript,
		"tool_use_id": fmt.Sprintf("toolu_m%05d", i)}
	if i%2 == 0 {
		m["tool_name"] = "Read"
		m["tool_input"] = map[string]any{"file_path": filepath.Join(root, "after", fmt.Sprintf("f%05d.go", i))}
		m["tool_response"] = map[string]any{"type": "text"}
	} else {
		m["tool_name"] = "Bash"
		m["tool_input"] = map[string]any{"command": "go test ./..."}
		m["tool_response"] = map[string]any{"stdout": "ok", "stderr": "", "interrupted": false}
	}
	b, _ := json.Marshal(m)
	return b
}

// p2Long records the long session into its own project (in-process), then
// runs n PostToolUse hooks of the real binary on it, interleaved with the
// same hooks on an empty session of another project, and returns both
// medians and the long session's state.json size.
func p2Long(bin, tmp string, n int) (empty, long time.Duration, stateBytes int64, tokens string, err error) {
	longRoot, err := newProject(filepath.Join(tmp, "long"))
	if err != nil {
		return 0, 0, 0, "", err
	}
	emptyRoot, err := newProject(filepath.Join(tmp, "long-baseline"))
	if err != nil {
		return 0, 0, 0, "", err
	}
	const longID, emptyID = "bench-long-00001", "bench-long-empty"
	longT := filepath.Join(longRoot, "transcripts", longID+".jsonl")
	emptyT := filepath.Join(emptyRoot, "transcripts", emptyID+".jsonl")
	evs := longSession(longRoot, longID, longT)
	fmt.Printf("recording the P2-long session (%d events: %d prompts of %d KiB, %d files read, %d agents, %d failures, %d notifications) ...\n",
		len(evs), longPrompts, longPromptBytes>>10, longFiles, longAgents, longFailures, longNotifications)
	env := func(root string) func(string) string {
		return func(k string) string {
			switch k {
			case "CLAUDE_PROJECT_DIR":
				return root
			case "SPCSTR_REGISTRY":
				return filepath.Join(root, "registry.json")
			}
			return ""
		}
	}
	for _, e := range evs {
		if err := appendTo(longT, e.main); err != nil {
			return 0, 0, 0, "", err
		}
		if err := appendTo(e.file, e.agent); err != nil {
			return 0, 0, 0, "", err
		}
		recorder.Run(context.Background(), recorder.Options{Stdin: bytes.NewReader(e.payload), Stdout: io.Discard, Stderr: io.Discard, Getenv: env(longRoot)})
	}
	// The baseline session has just started.
	start, _ := json.Marshal(map[string]any{"hook_event_name": "SessionStart", "source": "startup", "session_id": emptyID, "cwd": emptyRoot,
		"transcript_path": emptyT})
	recorder.Run(context.Background(), recorder.Options{Stdin: bytes.NewReader(start), Stdout: io.Discard, Stderr: io.Discard, Getenv: env(emptyRoot)})

	procEnv := func(root string) []string {
		return append(os.Environ(), "CLAUDE_PROJECT_DIR="+root,
			"SPCSTR_REGISTRY="+filepath.Join(root, "registry.json"), "CLAUDE_PID="+strconv.Itoa(os.Getpid()))
	}
	var tEmpty, tLong []time.Duration
	for i := 0; i < n; i++ {
		// Each measured hook follows one new assistant message in both
		// sessions' main transcripts.
		line := assistantLine(fmt.Sprintf("msg_measured_%05d", i), "claude-opus-5-5", i, "Read", false)
		if err := appendTo(emptyT, line); err != nil {
			return 0, 0, 0, "", err
		}
		if err := appendTo(longT, line); err != nil {
			return 0, 0, 0, "", err
		}
		d, _, err := exe(bin, nil, measuredPost(emptyRoot, emptyID, emptyT, i), procEnv(emptyRoot))
		if err != nil {
			return 0, 0, 0, "", fmt.Errorf("empty session: %w", err)
		}
		tEmpty = append(tEmpty, d)
		d, _, err = exe(bin, nil, measuredPost(longRoot, longID, longT, i), procEnv(longRoot))
		if err != nil {
			return 0, 0, 0, "", fmt.Errorf("long session: %w", err)
		}
		tLong = append(tLong, d)
	}
	statePath := filepath.Join(longRoot, ".spcstr", "sessions", longID, "state.json")
	if fi, err := os.Stat(statePath); err == nil {
		stateBytes = fi.Size()
	}
	// One more hook reads whatever the measured ones left (a hook reads at
	// most 32 MiB), then the totals are compared.
	if _, _, err := exe(bin, nil, measuredPost(longRoot, longID, longT, n), procEnv(longRoot)); err != nil {
		return 0, 0, 0, "", err
	}
	tokens, err = compareTokens(statePath, longT)
	return median(tEmpty), median(tLong), stateBytes, tokens, err
}

// usage4 is a message's four token counts.
type usage4 struct {
	Input         int64 `json:"input_tokens"`
	Output        int64 `json:"output_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
}

// compareTokens sums the usage of the main transcript and its subagent
// transcripts independently of spcstr (encoding/json, each message id
// once, the last line winning) and compares it with the session's
// state.json: "" when equal, else what differs.
func compareTokens(statePath, transcript string) (string, error) {
	byID := map[string]usage4{}
	files, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "subagents", "agent-*.jsonl"))
	for _, f := range append([]string{transcript}, files...) {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var l struct {
				Type    string `json:"type"`
				Message struct {
					ID    string  `json:"id"`
					Usage *usage4 `json:"usage"`
				} `json:"message"`
			}
			if json.Unmarshal(line, &l) == nil && l.Type == "assistant" && l.Message.Usage != nil {
				byID[l.Message.ID] = *l.Message.Usage
			}
		}
	}
	var want usage4
	for _, u := range byID {
		want.Input += u.Input
		want.Output += u.Output
		want.CacheRead += u.CacheRead
		want.CacheCreation += u.CacheCreation
	}
	data, err := os.ReadFile(statePath)
	if err != nil {
		return "", err
	}
	var st struct {
		Tokens struct {
			Input         int64 `json:"input"`
			Output        int64 `json:"output"`
			CacheRead     int64 `json:"cache_read"`
			CacheCreation int64 `json:"cache_creation"`
		} `json:"tokens"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return "", err
	}
	got := usage4{st.Tokens.Input, st.Tokens.Output, st.Tokens.CacheRead, st.Tokens.CacheCreation}
	if got != want {
		return fmt.Sprintf("state.json %+v, the transcripts (%d messages) %+v", got, len(byID), want), nil
	}
	return "", nil
}
