package harness

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The Anthropic Messages API as far as the Claude Code CLI uses it offline:
// POST /v1/messages (streamed as server-sent events when the request says
// "stream": true, which the CLI always does), POST
// /v1/messages/count_tokens, GET /v1/models. Any other request gets an
// empty JSON object.
//
// Routing of a /v1/messages request, in this order:
//   - "summary": the last user message asks for a summary of the
//     conversation (a compaction), answered with the scenario's
//     summary_text;
//   - "side": the request offers no tools (titles and the like), answered
//     with side_text;
//   - "agent:NAME": the first user message contains an agent's match text
//     (a subagent's first message is the prompt its parent passed);
//   - "main": everything else.
//
// The turn served is turns[k], k being the number of assistant messages
// already in the request, so a retried or concurrent request gets the
// right turn. When k goes down for a conversation (compaction replaced its
// history by a summary), the next turn not yet served follows. Past the
// last turn, the answer is fallback_text with end_turn, so a session
// always ends.

const (
	mockModel            = "claude-sonnet-4-5-20250929"
	defaultSummaryMarker = "create a detailed summary of the conversation"
	defaultSummaryText   = "<analysis>Scripted session.</analysis>\n<summary>\n" +
		"1. Primary Request and Intent: the scripted prompt.\n" +
		"2. Current state: in progress; go on with the next scripted step.\n</summary>"
)

// Mock is a scripted Messages API on a loopback port.
type Mock struct {
	sc  *Scenario
	srv *http.Server
	ln  net.Listener
	log *os.File

	mu     sync.Mutex
	convs  map[string]*convState
	logMu  sync.Mutex
	nextID atomic.Int64
}

type convState struct{ offset, last int }

// StartMock serves sc on 127.0.0.1 (a free port) and appends every request,
// with how it was routed, to logPath as one JSON line.
func StartMock(sc *Scenario, logPath string) (*Mock, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		ln.Close()
		return nil, err
	}
	m := &Mock{sc: sc, ln: ln, log: f, convs: map[string]*convState{}}
	m.srv = &http.Server{Handler: m, ReadHeaderTimeout: 30 * time.Second}
	go m.srv.Serve(ln) //nolint:errcheck // returns when Close is called
	return m, nil
}

// URL is the base URL for ANTHROPIC_BASE_URL.
func (m *Mock) URL() string { return "http://" + m.ln.Addr().String() }

// Close stops the server and closes the request log.
func (m *Mock) Close() error {
	err := m.srv.Close()
	m.logMu.Lock()
	defer m.logMu.Unlock()
	if cerr := m.log.Close(); err == nil {
		err = cerr
	}
	return err
}

func (m *Mock) record(rec map[string]any) {
	rec["t"] = float64(time.Now().UnixMilli()) / 1000
	line, err := json.Marshal(rec)
	if err != nil {
		return
	}
	m.logMu.Lock()
	defer m.logMu.Unlock()
	m.log.Write(append(line, '\n')) //nolint:errcheck // the log is for reading after the run
}

func headers(r *http.Request) map[string]string {
	out := map[string]string{}
	for k, v := range r.Header {
		val := strings.Join(v, ", ")
		if lk := strings.ToLower(k); lk == "x-api-key" || lk == "authorization" {
			if len(val) > 12 {
				val = val[:12] + "..."
			}
		}
		out[strings.ToLower(k)] = val
	}
	return out
}

func (m *Mock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 256<<20))
	path := r.URL.Path
	switch {
	case r.Method == http.MethodHead:
		w.WriteHeader(http.StatusOK)
	case r.Method == http.MethodGet:
		m.record(map[string]any{"method": "GET", "path": r.URL.String(), "headers": headers(r)})
		if strings.TrimSuffix(path, "/") == "/v1/models" {
			writeJSON(w, http.StatusOK, map[string]any{
				"data":     []any{map[string]any{"type": "model", "id": mockModel, "display_name": "Mock", "created_at": "2025-01-01T00:00:00Z"}},
				"has_more": false, "first_id": mockModel, "last_id": mockModel})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{})
	case strings.HasSuffix(path, "/v1/messages/count_tokens"):
		m.record(map[string]any{"method": "POST", "path": r.URL.String(), "route": "count_tokens", "body": json.RawMessage(orEmpty(body))})
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": max(1, len(body)/4)})
	case strings.HasSuffix(path, "/v1/messages"):
		m.messages(w, r, body)
	default:
		m.record(map[string]any{"method": r.Method, "path": r.URL.String(), "route": "other"})
		writeJSON(w, http.StatusOK, map[string]any{})
	}
}

func orEmpty(b []byte) []byte {
	if !json.Valid(b) {
		q, _ := json.Marshal(string(b))
		return q
	}
	return b
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_mock_"+randHex(8))
	w.WriteHeader(status)
	w.Write(data) //nolint:errcheck // the client went away
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) //nolint:errcheck // never fails
	return hex.EncodeToString(b)
}

// request is the part of a Messages request the routing reads.
type request struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Tools    []any  `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// contentText joins the text (and tool results' text) of a message's
// content, which is a string or a list of blocks.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "tool_result":
			parts = append(parts, contentText(b.Content))
		}
	}
	return strings.Join(parts, "\n")
}

// pick routes a request and chooses its turn; idx is -1 for summary and
// side answers.
func (m *Mock) pick(req *request) (conv string, k, idx int, turn Turn, fallback bool) {
	first, last := "", ""
	seenUser := false
	for _, msg := range req.Messages {
		switch msg.Role {
		case "assistant":
			k++
		case "user":
			t := contentText(msg.Content)
			if !seenUser {
				first, seenUser = t, true
			}
			last = t
		}
	}
	markers := m.sc.SummaryMarkers
	if len(markers) == 0 {
		markers = []string{defaultSummaryMarker}
	}
	for _, mk := range markers {
		if strings.Contains(last, mk) {
			text := m.sc.SummaryText
			if text == "" {
				text = defaultSummaryText
			}
			return "summary", k, -1, Turn{Text: text}, false
		}
	}
	if len(req.Tools) == 0 {
		text := m.sc.SideText
		if text == "" {
			text = "OK"
		}
		return "side", k, -1, Turn{Text: text}, false
	}
	conv, turns := "main", m.sc.Turns
	for _, a := range m.sc.Agents {
		if a.Match != "" && strings.Contains(first, a.Match) {
			name := a.Name
			if name == "" {
				name = a.Match
			}
			conv, turns = "agent:"+name, a.Turns
			break
		}
	}
	idx = m.turnIndex(conv, k)
	if idx < len(turns) {
		return conv, k, idx, turns[idx], false
	}
	text := m.sc.FallbackText
	if text == "" {
		text = "done"
	}
	return conv, k, idx, Turn{Text: text}, true
}

func (m *Mock) turnIndex(conv string, k int) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.convs[conv]
	if st == nil {
		st = &convState{last: -1}
		m.convs[conv] = st
	}
	idx := k + st.offset
	if idx < st.last { // the history shrank: a compaction
		st.offset = st.last + 1 - k
		idx = st.last + 1
	}
	st.last = max(st.last, idx)
	return idx
}

// block is one content block of an answer.
type block struct {
	Type  string          `json:"type"`
	Text  string          `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

func (m *Mock) messages(w http.ResponseWriter, r *http.Request, body []byte) {
	var req request
	_ = json.Unmarshal(body, &req)
	conv, k, idx, turn, fallback := m.pick(&req)
	rec := map[string]any{"method": "POST", "path": r.URL.String(), "headers": headers(r), "route": conv,
		"n_assistant": k, "served": turn, "fallback": fallback, "stream": req.Stream, "body": json.RawMessage(orEmpty(body))}
	if idx >= 0 {
		rec["turn_index"] = idx
	}
	m.record(rec)
	if turn.Delay > 0 {
		time.Sleep(time.Duration(turn.Delay * float64(time.Second)))
	}
	if e := turn.HTTPError; e != nil {
		typ, msg, status := e.Type, e.Message, e.Status
		if typ == "" {
			typ = "api_error"
		}
		if msg == "" {
			msg = "mock error"
		}
		if status == 0 {
			status = 500
		}
		writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
		return
	}
	var content []block
	if turn.Text != "" {
		content = append(content, block{Type: "text", Text: turn.Text})
	}
	for _, t := range turn.Tools {
		id := t.ID
		if id == "" {
			id = fmt.Sprintf("toolu_mock%06d_%s", m.nextID.Add(1), randHex(6))
		}
		in := t.Input
		if len(in) == 0 {
			in = json.RawMessage("{}")
		}
		content = append(content, block{Type: "tool_use", ID: id, Name: t.Name, Input: in})
	}
	if len(content) == 0 {
		content = append(content, block{Type: "text", Text: "(empty)"})
	}
	stop := turn.StopReason
	if stop == "" {
		stop = "end_turn"
		if len(turn.Tools) > 0 {
			stop = "tool_use"
		}
	}
	usage := map[string]any{"input_tokens": int64(120), "output_tokens": int64(30), "cache_creation_input_tokens": int64(0), "cache_read_input_tokens": int64(0)}
	split := map[string]int64{}
	for key, v := range turn.Usage {
		switch key {
		case "ephemeral_1h_input_tokens", "ephemeral_5m_input_tokens":
			split[key] = v
		default:
			usage[key] = v
		}
	}
	if len(split) > 0 {
		usage["cache_creation"] = map[string]int64{"ephemeral_1h_input_tokens": split["ephemeral_1h_input_tokens"],
			"ephemeral_5m_input_tokens": split["ephemeral_5m_input_tokens"]}
	}
	model := req.Model
	if model == "" {
		model = mockModel
	}
	id := "msg_mock_" + randHex(10)
	if !req.Stream {
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	stream(w, id, model, content, stop, usage)
}

// stream writes the answer as the API's server-sent events: message_start,
// then per block content_block_start, its deltas (text in a few pieces,
// a tool's input as partial JSON) and content_block_stop, then
// message_delta with the stop reason and message_stop.
func stream(w http.ResponseWriter, id, model string, content []block, stop string, usage map[string]any) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "close")
	h.Set("request-id", "req_mock_"+randHex(8))
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	startUsage := map[string]any{}
	for k, v := range usage {
		startUsage[k] = v
	}
	startUsage["output_tokens"] = int64(1)
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": startUsage}})
	event("ping", map[string]any{"type": "ping"})
	for i, b := range content {
		switch b.Type {
		case "text":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, piece := range split(b.Text, 3) {
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": piece}})
			}
		case "tool_use":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			for _, piece := range split(string(b.Input), 2) {
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": piece}})
			}
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": usage["output_tokens"]}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// split cuts s into about n pieces on rune boundaries, as the real API
// streams text in chunks.
func split(s string, n int) []string {
	r := []rune(s)
	if len(r) == 0 {
		return nil
	}
	step := max(1, (len(r)+n-1)/n)
	var out []string
	for i := 0; i < len(r); i += step {
		out = append(out, string(r[i:min(len(r), i+step)]))
	}
	return out
}
