package state

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gitrepo"
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
				Marker: "REVIEW_APPROVED", ToolsUsed: map[string]int{"Read": 2}, DurationMS: 1234.5, TotalTokens: 99},
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
			ByModel: map[string]ModelUsage{"claude-x": {Input: 1, Output: 2, CacheRead: 3, CacheCreation: 4}}},
		Compactions: 1,
		Starts:      []Start{{Source: "startup", At: at}},
		EventCounts: map[string]int{"PreToolUse": 9},
		LastEvent:   "PreToolUse", LastEventAt: done,
		Activity:   []MinuteCount{{Minute: 29925202, Count: 3}},
		Transcript: TranscriptCursor{Path: "/t.jsonl", Offset: 42, Recent: []MessageUsage{{ID: "m1", Input: 1, Output: 2, CacheRead: 3, CacheCreation: 4}}},
		GitHead:    gitrepo.HeadCache{Dir: "/p", Head: "/p/.git/HEAD", ModNS: 5, Size: 21, Branch: "main"},
		Gates:      map[string]GateState{"requirements": {StopBlocks: 1, ToolsAtBlock: 2}},
		Notes:      map[string]bool{"warned": true},
	}
}

// The generated codec writes what encoding/json writes (the contract in
// docs/state.md is encoding/json's), and reads it back whole: the
// sectioned file decodes with encoding/json to the same session, and
// encoding/json's document decodes with the generated codec to it too.
func TestGeneratedCodecMatchesEncodingJSON(t *testing.T) {
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
				t.Errorf("generated encoding differs from encoding/json:\n got %s\nwant %s", file, std)
			}

			var back Session
			if ok, err := decodeSectioned(file, &back, AllSections); !ok || err != nil {
				t.Fatalf("decodeSectioned: ok=%v err=%v", ok, err)
			}
			var fromStd Session
			if err := json.Unmarshal(std, (*sessionJSON)(&fromStd)); err != nil {
				t.Fatal(err)
			}
			for what, d := range map[string]*Session{"sectioned": &back, "encoding/json's": &fromStd} {
				a, _ := json.Marshal(d)
				if !bytes.Equal(a, std) {
					t.Errorf("%s document read back differs:\n got %s\nwant %s", what, a, std)
				}
			}
		})
	}
}
