package state

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
)

// richSession sets every field of a Session, with text that needs escaping,
// so that a codec that drops or misspells a field is caught.
func richSession() *Session {
	at := time.Date(2026, 11, 24, 9, 30, 0, 123456789, time.UTC)
	done := at.Add(time.Minute)
	odd := "quote\" back\\slash <html>&amp; tab\t nl\n ctrl\x01 \u2028 é 😀"
	return &Session{
		Version: SchemaVersion, SessionID: "s-1", CreatedAt: at, UpdatedAt: done,
		SessionActive: true, Status: StatusWorking, EndReason: "other",
		ProjectDir: "/p", Branch: "main", Cwd: "/p/sub", TranscriptPath: "/t.jsonl",
		Model: "claude-x", PermissionMode: "plan", Title: odd, TitleSource: TitlePrompt,
		Agents: []string{"reviewer"},
		AgentsHistory: []Agent{
			{Name: "reviewer", AgentID: "a1", AgentType: "reviewer", Description: odd, ToolUseID: "t1",
				Background: true, StartedAt: at, CompletedAt: &done, Status: AgentCompleted, Result: "PASS",
				Marker: "REVIEW_APPROVED", ToolsUsed: map[string]int{"Read": 2}, DurationMS: 1234.5, TotalTokens: 99,
				Usage: map[string]ModelUsage{"claude-z+us": {Input: 5, CacheWrite1h: 1}}},
			{Name: "quick", StartedAt: at, CompletedAt: &done, DurationMS: 2.5e-7},
			{Name: "tester", StartedAt: at},
		},
		Files:     Files{New: []string{"a.go"}, Edited: []string{odd}, Read: []string{}},
		ToolsUsed: map[string]int{"Bash": 3, "Edit": 1},
		Errors: []Error{{Timestamp: at, Type: ErrorTool, Message: odd,
			Context: map[string]any{"tool": "Bash", "n": 2.5, "nested": map[string]any{"ok": true}, "list": []any{"x", nil}}}},
		Prompts:            []Prompt{{Timestamp: at, Prompt: odd, Kind: PromptKindTaskNotification, PromptID: "p1", Truncated: true}},
		Notifications:      []Notification{{Timestamp: at, Message: "m", Type: "idle_prompt", Title: "t"}},
		PromptsTotal:       7,
		ErrorsTotal:        3,
		NotificationsTotal: 2,
		AgentsTotal:        4,
		Todos:              []Todo{{Content: "c", Status: "pending", ActiveForm: "doing"}},
		Tasks:              []Task{{ID: "1", Subject: "s", Description: "d", Status: "done", UpdatedAt: at}},
		Tokens: Tokens{Input: 1, Output: 2, CacheRead: 3, CacheCreation: 4, ContextUsed: 5, ContextWindow: 200000,
			ByModel: map[string]ModelUsage{"claude-x": {Input: 1, Output: 2, CacheRead: 3, CacheCreation: 4, CacheWrite1h: 2, WebSearches: 1}}, Skipped: 2},
		Compactions: 1,
		Starts:      []Start{{Source: "startup", At: at}},
		EventCounts: map[string]int{"PreToolUse": 9},
		LastEvent:   "PreToolUse", LastEventAt: done,
		Activity:   []MinuteCount{{Minute: 29925202, Count: 3}},
		Transcript: TranscriptCursor{Path: "/t.jsonl", Offset: 42, Recent: []MessageUsage{{ID: "m1", Input: 1, Output: 2, CacheRead: 3, CacheCreation: 4, CacheWrite1h: 1, WebSearches: 2, Key: "claude-x+us"}}},
		Subagents: map[string]SubagentUsage{"a1": {Cursor: TranscriptCursor{Offset: 9, Recent: []MessageUsage{{ID: "m2", Output: 1}}},
			ByModel: map[string]ModelUsage{"claude-y": {Output: 1}}}, "a2": {Stopped: true, Done: true}},
		ClaudeCost: &ClaudeCost{USD: 0.1465, UnknownModel: true, ByModel: map[string]ClaudeModelCost{"claude-x": {Input: 1, Output: 2, CacheRead: 3, CacheCreation: 4, WebSearches: 1, USD: 0.0001}}},
		ForkedFrom: "s-parent",
		Inherited:  map[string]ModelUsage{"claude-x": {Input: 5, Output: 6, CacheRead: 7, CacheCreation: 8, CacheWrite1h: 2}},
		GitHead:    gitrepo.HeadCache{Dir: "/p", Head: "/p/.git/HEAD", ModNS: 5, Size: 21, Branch: "main"},
		Gates:      map[string]GateState{"requirements": {StopBlocks: 1, ToolsAtBlock: 2}},
		Notes:      map[string]bool{"warned": true},
		Terminal:   Terminal{Kind: "tmux", Socket: "/tmp/tmux-1000/default", Pane: "%3", Session: "z", Program: "tmux"},
	}
}

// The codec writes what encoding/json writes and reads it back whole: the
// sectioned file decodes with encoding/json to the same session, and
// encoding/json's document decodes with the codec to it too.
func TestCodecMatchesEncodingJSON(t *testing.T) {
	for name, s := range map[string]*Session{"rich": richSession(), "empty": New("s-2", "/p", time.Unix(0, 0).UTC())} {
		t.Run(name, func(t *testing.T) {
			pieces, err := s.encode()
			if err != nil {
				t.Fatal(err)
			}
			file := bytes.Join(pieces, nil)
			var viaStd Session
			if err := json.Unmarshal(file, &viaStd); err != nil {
				t.Fatalf("sectioned file is not JSON: %v\n%s", err, file)
			}
			std, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var want, got any
			_ = json.Unmarshal(std, &want)
			_ = json.Unmarshal(file, &got)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("encoding differs from encoding/json:\n got %s\nwant %s", file, std)
			}

			var back Session
			if ok, err := decodeSectioned(file, &back, AllSections); !ok || err != nil {
				t.Fatalf("decodeSectioned: ok=%v err=%v", ok, err)
			}
			fromStd := decodeWithCodec(t, std)
			for what, d := range map[string]*Session{"sectioned": &back, "encoding/json's": fromStd} {
				a, _ := json.Marshal(d)
				if !bytes.Equal(a, std) {
					t.Errorf("%s document read back differs:\n got %s\nwant %s", what, a, std)
				}
			}
		})
	}
}

// Byte for byte: the head and every entry are what encoding/json writes
// (its members in order, maps' keys sorted, its number and time formats).
func TestCodecBytesMatchEncodingJSON(t *testing.T) {
	s := richSession()
	h := *s
	h.AgentsHistory, h.Files, h.Errors, h.Prompts, h.Notifications = nil, Files{}, nil, nil, nil
	want, err := json.Marshal(&h)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{`"agents_history":null,`, `"files":{"new":null,"edited":null,"read":null},`, `"errors":null,`, `"prompts":null,`, `"notifications":null,`} {
		want = bytes.Replace(want, []byte(m), nil, 1)
	}
	check := func(what string, got []byte, err error, want []byte) {
		t.Helper()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s (err %v):\n got %s\nwant %s", what, err, got, want)
		}
	}
	got, err := jsoncodec.Marshal(head{s})
	check("head", got, err, want)
	for i, field := range []any{s.AgentsHistory, s.Files.New, s.Files.Edited, s.Files.Read, s.Errors, s.Prompts, s.Notifications} {
		got, err := jsoncodec.Marshal(s.sectionValue(i))
		want, _ := json.Marshal(field)
		check(sectionLine[i].prefix, got, err, want)
	}
}

// decodeWithCodec reads a whole document written by encoding/json with the
// codec: its sections with the lists', the rest as the head.
func decodeWithCodec(t *testing.T, doc []byte) *Session {
	t.Helper()
	var members map[string]json.RawMessage
	if err := json.Unmarshal(doc, &members); err != nil {
		t.Fatal(err)
	}
	var files map[string]json.RawMessage
	if err := json.Unmarshal(members["files"], &files); err != nil {
		t.Fatal(err)
	}
	var s Session
	for i, raw := range []json.RawMessage{members["agents_history"], files["new"], files["edited"], files["read"],
		members["errors"], members["prompts"], members["notifications"]} {
		if err := jsoncodec.Unmarshal(raw, s.sectionValue(i)); err != nil {
			t.Fatalf("section %s: %v", raw, err)
		}
	}
	for _, k := range []string{"agents_history", "files", "errors", "prompts", "notifications"} {
		delete(members, k)
	}
	h, err := json.Marshal(members)
	if err != nil {
		t.Fatal(err)
	}
	if err := jsoncodec.Unmarshal(h, head{&s}); err != nil {
		t.Fatalf("head: %v", err)
	}
	return &s
}

// A member of another kind than its field fails the read: state.Update
// then sets the file aside instead of keeping half of it.
func TestCodecRefusesWrongKinds(t *testing.T) {
	for _, doc := range []string{
		`{"version":"2"}`, `{"tools_used":{"Bash":"x"}}`, `{"created_at":"yesterday"}`,
		`{"tokens":{"input":1.5}}`, `{"starts":[{"at":7}]}`, `{"git_head":[]}`,
	} {
		var s Session
		if err := jsoncodec.Unmarshal([]byte(doc), head{&s}); err == nil {
			t.Errorf("%s read without an error", doc)
		}
	}
	var s Session
	if err := jsoncodec.Unmarshal([]byte(`{"version":2,"unknown":{"deep":[1]},"Status":"working"}`), head{&s}); err != nil || s.Version != 2 || s.Status != "working" {
		t.Errorf("unknown members and a case variant: %v %+v", err, s)
	}
}

// FuzzDecodeSectioned: whatever a repository puts in state.json, reading
// it ends in a session or an error, never a panic or a hang, and a session
// read without an error is written back as a JSON document.
func FuzzDecodeSectioned(f *testing.F) {
	pieces, err := richSession().encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.Join(pieces, nil))
	f.Add([]byte("{\"version\":2,\n\"agents_history\":[],\n\"files\":{\"new\":[],\n\"edited\":[],\n\"read\":[]},\n\"errors\":[],\n\"prompts\":[],\n\"notifications\":[]}\n"))
	f.Add([]byte(`{"version":2,"tools_used":{"a":1`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Session
		ok, err := decodeSectioned(data, &s, AllSections)
		if !ok || err != nil {
			return
		}
		pieces, err := s.encode()
		if err != nil {
			return // a value JSON cannot hold: Update reports it
		}
		if out := bytes.Join(pieces, nil); !json.Valid(out) {
			t.Fatalf("read %q, wrote %q, which is not JSON", data, out)
		}
	})
}
