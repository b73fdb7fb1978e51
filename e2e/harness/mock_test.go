package harness

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// post sends a Messages request and returns the SSE events (name and
// data) it got back.
func post(t *testing.T, m *Mock, body string) (names []string, datas []map[string]any) {
	t.Helper()
	resp, err := http.Post(m.URL()+"/v1/messages?beta=true", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			names = append(names, strings.TrimPrefix(line, "event: "))
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("data line is not JSON: %s", line)
			}
			datas = append(datas, d)
		}
	}
	return names, datas
}

func startMock(t *testing.T, sc *Scenario) *Mock {
	t.Helper()
	m, err := StartMock(sc, filepath.Join(t.TempDir(), "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// The stream has the API's event sequence, and the deltas put back
// together give the scripted text and tool input.
func TestMockStream(t *testing.T) {
	sc := &Scenario{Turns: []Turn{{Text: "Writing the file — ✓", Tools: []Tool{{Name: "Write", Input: json.RawMessage(`{"file_path":"/p/a.txt","content":"hi\n"}`)}},
		Usage: map[string]int64{"input_tokens": 900}}}}
	m := startMock(t, sc)
	names, datas := post(t, m, `{"model":"claude-x","stream":true,"tools":[{"name":"Write"}],"messages":[{"role":"user","content":"go"}]}`)
	want := "message_start ping content_block_start content_block_delta content_block_delta content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("events:\n got  %s\n want %s", got, want)
	}
	var text, input string
	for _, d := range datas {
		if d["type"] != "content_block_delta" {
			continue
		}
		delta := d["delta"].(map[string]any)
		text += str(delta["text"])
		input += str(delta["partial_json"])
	}
	if text != "Writing the file — ✓" || input != `{"file_path":"/p/a.txt","content":"hi\n"}` {
		t.Errorf("text %q, input %q", text, input)
	}
	start := datas[0]["message"].(map[string]any)
	if start["model"] != "claude-x" || start["usage"].(map[string]any)["input_tokens"] != 900.0 {
		t.Errorf("message_start %v", start)
	}
	if stop := datas[len(datas)-2]["delta"].(map[string]any)["stop_reason"]; stop != "tool_use" {
		t.Errorf("stop_reason %v, want tool_use", stop)
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// Routing: turn k for k assistant messages, agents by their marker, side
// requests without tools, the fallback past the last turn, and after a
// compaction (fewer assistant messages) the next turn not yet served.
func TestMockRouting(t *testing.T) {
	sc := &Scenario{
		Turns:  []Turn{{Text: "t0"}, {Text: "t1"}, {Text: "t2"}},
		Agents: []Agent{{Name: "rev", Match: "AGENT_MARK", Turns: []Turn{{Text: "a0"}}}},
	}
	m := startMock(t, sc)
	text := func(body string) string {
		_, datas := post(t, m, body)
		s := ""
		for _, d := range datas {
			if d["type"] == "content_block_delta" {
				s += str(d["delta"].(map[string]any)["text"])
			}
		}
		return s
	}
	msgs := func(n int, first string) string {
		out := []string{`{"role":"user","content":[{"type":"text","text":"` + first + `"}]}`}
		for i := 0; i < n; i++ {
			out = append(out, `{"role":"assistant","content":"x"}`, `{"role":"user","content":"y"}`)
		}
		return `{"stream":true,"tools":[{}],"messages":[` + strings.Join(out, ",") + `]}`
	}
	for _, tt := range []struct{ body, want string }{
		{msgs(0, "go"), "t0"},
		{msgs(1, "go"), "t1"},
		{msgs(1, "go"), "t1"}, // a retry gets the same turn
		{msgs(0, "AGENT_MARK: review"), "a0"},
		{msgs(1, "AGENT_MARK: review"), "done"},
		{`{"stream":true,"messages":[{"role":"user","content":"title?"}]}`, "OK"},
		{msgs(0, "summary") /* compacted: history shrank */, "t2"},
		{msgs(1, "after"), "done"},
	} {
		if got := text(tt.body); got != tt.want {
			t.Errorf("request %s: answered %q, want %q", tt.body, got, tt.want)
		}
	}
	log, err := os.ReadFile(filepath.Join(filepath.Dir(m.log.Name()), "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "\n"); n != 8 {
		t.Errorf("requests.jsonl has %d lines, want 8", n)
	}
}
