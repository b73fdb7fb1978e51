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

// longSession builds the P2-long session's events, in a plausible order:
// each prompt is followed by its share of reads, agents, failures and
// notifications.
func longSession(root, session string) [][]byte {
	var out [][]byte
	add := func(m map[string]any) {
		m["session_id"], m["cwd"] = session, root
		m["transcript_path"] = ""
		b, _ := json.Marshal(m)
		out = append(out, b)
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
			add(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_use_id": fmt.Sprintf("toolu_r%05d", file),
				"tool_input": map[string]any{"file_path": path}})
			add(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_use_id": fmt.Sprintf("toolu_r%05d", file),
				"tool_input": map[string]any{"file_path": path}, "tool_response": map[string]any{"type": "text"}})
		}
		for ; agent < (p+1)*longAgents/longPrompts; agent++ {
			id, aid := fmt.Sprintf("toolu_a%05d", agent), fmt.Sprintf("a%015d", agent)
			in := map[string]any{"subagent_type": "Explore", "description": fmt.Sprintf("explore part %d", agent), "prompt": "look around"}
			add(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_use_id": id, "tool_input": in})
			add(map[string]any{"hook_event_name": "SubagentStart", "agent_id": aid, "agent_type": "Explore"})
			add(map[string]any{"hook_event_name": "SubagentStop", "agent_id": aid, "agent_type": "Explore", "last_assistant_message": "done"})
			add(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Agent", "tool_use_id": id, "tool_input": in,
				"tool_response": map[string]any{"status": "completed", "agentId": aid, "agentType": "Explore", "totalDurationMs": 1200, "totalTokens": 5000,
					"content": []any{map[string]any{"type": "text", "text": "found it"}}}})
		}
		for ; fail < (p+1)*longFailures/longPrompts; fail++ {
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

// measuredPost is the i-th measured PostToolUse: reads of new files and
// commands, alternating, the same for both sessions.
func measuredPost(root, session string, i int) []byte {
	m := map[string]any{"hook_event_name": "PostToolUse", "session_id": session, "cwd": root, "transcript_path": "",
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
func p2Long(bin, tmp string, n int) (empty, long time.Duration, stateBytes int64, err error) {
	longRoot, err := newProject(filepath.Join(tmp, "long"))
	if err != nil {
		return 0, 0, 0, err
	}
	emptyRoot, err := newProject(filepath.Join(tmp, "long-baseline"))
	if err != nil {
		return 0, 0, 0, err
	}
	const longID, emptyID = "bench-long-00001", "bench-long-empty"
	evs := longSession(longRoot, longID)
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
	for _, p := range evs {
		recorder.Run(context.Background(), recorder.Options{Stdin: bytes.NewReader(p), Stdout: io.Discard, Stderr: io.Discard, Getenv: env(longRoot)})
	}
	// The baseline session has just started.
	start, _ := json.Marshal(map[string]any{"hook_event_name": "SessionStart", "source": "startup", "session_id": emptyID, "cwd": emptyRoot})
	recorder.Run(context.Background(), recorder.Options{Stdin: bytes.NewReader(start), Stdout: io.Discard, Stderr: io.Discard, Getenv: env(emptyRoot)})

	procEnv := func(root string) []string {
		return append(os.Environ(), "CLAUDE_PROJECT_DIR="+root,
			"SPCSTR_REGISTRY="+filepath.Join(root, "registry.json"), "CLAUDE_PID="+strconv.Itoa(os.Getpid()))
	}
	var tEmpty, tLong []time.Duration
	for i := 0; i < n; i++ {
		d, _, err := exe(bin, nil, measuredPost(emptyRoot, emptyID, i), procEnv(emptyRoot))
		if err != nil {
			return 0, 0, 0, fmt.Errorf("empty session: %w", err)
		}
		tEmpty = append(tEmpty, d)
		d, _, err = exe(bin, nil, measuredPost(longRoot, longID, i), procEnv(longRoot))
		if err != nil {
			return 0, 0, 0, fmt.Errorf("long session: %w", err)
		}
		tLong = append(tLong, d)
	}
	if fi, err := os.Stat(filepath.Join(longRoot, ".spcstr", "sessions", longID, "state.json")); err == nil {
		stateBytes = fi.Size()
	}
	return median(tEmpty), median(tLong), stateBytes, nil
}
