package search

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// project writes logs (file name → entry lines) into a temporary project.
func project(t *testing.T, files map[string][]string) state.Layout {
	t.Helper()
	l := state.Layout{Root: t.TempDir()}
	if err := os.MkdirAll(l.LogsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, lines := range files {
		data := "[\n" + strings.Join(lines, ",\n") + "\n]\n"
		if err := os.WriteFile(filepath.Join(l.LogsDir(), name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

const (
	prompt  = `{"timestamp":"2026-01-02T03:04:05Z","session_id":"aaaa1111-0000","event":"UserPromptSubmit","input":{"hook_event_name":"UserPromptSubmit","prompt":"Add a /healthz endpoint\nto the server"}}`
	bash    = `{"timestamp":"2026-01-02T03:04:06Z","session_id":"bbbb2222-0000","event":"PreToolUse","input":{"tool_name":"Bash","tool_input":{"command":"go test ./server -run TestHealthz"}}}`
	failure = `{"timestamp":"2026-01-02T03:04:07Z","session_id":"bbbb2222-0000","event":"PostToolUseFailure","input":{"tool_name":"Bash","error":"exit status 1: FAIL server/healthz_test.go:12 \u001b[31mboom\u001b[0m"}}`
	escaped = `{"timestamp":"2026-01-02T03:04:08Z","session_id":"cccc3333-0000","event":"PreToolUse","input":{"tool_name":"Edit","tool_input":{"file_path":"src\/caf\u00e9\/a\u003cb\u003e.go"}}}`
	decided = `{"timestamp":"2026-01-02T03:04:09Z","session_id":"aaaa1111-0000","hook":"Stop","source":"feedback","decision":"block","reason":"healthz"}`
)

func TestRun(t *testing.T) {
	l := project(t, map[string][]string{
		"user_prompt_submit.json":    {prompt},
		"pre_tool_use.1.json":        {bash},
		"pre_tool_use.json":          {escaped},
		"post_tool_use_failure.json": {failure},
		"decisions.json":             {decided},
		"notes.txt":                  {prompt},
	})
	// A FIFO in logs/ is skipped, never opened.
	_ = mkfifo(filepath.Join(l.LogsDir(), "stop.json"))
	tests := []struct {
		name string
		q    Query
		want []string // session, event, field, snippet
	}{
		{"prompt text, any case", Query{Text: "healthz endpoint"}, []string{
			"aaaa1111-0000 UserPromptSubmit prompt Add a /healthz endpoint to the server",
		}},
		{"smart case: an upper-case letter matches case", Query{Text: "TestHealthz"}, []string{
			"bbbb2222-0000 PreToolUse tool_input.command go test ./server -run TestHealthz",
		}},
		{"lower case finds every case", Query{Text: "healthz"}, []string{
			"bbbb2222-0000 PostToolUseFailure error exit status 1: FAIL server/healthz_test.go:12 boom",
			"bbbb2222-0000 PreToolUse tool_input.command go test ./server -run TestHealthz",
			"aaaa1111-0000 UserPromptSubmit prompt Add a /healthz endpoint to the server",
		}},
		{"case sensitive", Query{Text: "healthz", CaseSensitive: true}, []string{
			"bbbb2222-0000 PostToolUseFailure error exit status 1: FAIL server/healthz_test.go:12 boom",
			"aaaa1111-0000 UserPromptSubmit prompt Add a /healthz endpoint to the server",
		}},
		{"escaped characters in the log", Query{Text: "src/café/a<b>.go"}, []string{
			"cccc3333-0000 PreToolUse tool_input.file_path src/café/a<b>.go",
		}},
		{"session prefix", Query{Text: "healthz", Session: "aaaa"}, []string{
			"aaaa1111-0000 UserPromptSubmit prompt Add a /healthz endpoint to the server",
		}},
		{"limit", Query{Text: "healthz", Limit: 1}, []string{
			"bbbb2222-0000 PostToolUseFailure error exit status 1: FAIL server/healthz_test.go:12 boom",
		}},
		{"one line per session", Query{Text: "healthz", PerSession: true}, []string{
			"bbbb2222-0000 PostToolUseFailure error exit status 1: FAIL server/healthz_test.go:12 boom",
			"aaaa1111-0000 UserPromptSubmit prompt Add a /healthz endpoint to the server",
		}},
		{"keys and ids are not text", Query{Text: "tool_name"}, nil},
		{"no match", Query{Text: "nowhere"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			st, err := Run(context.Background(), l, tt.q, func(m Match) error {
				got = append(got, strings.Join([]string{m.SessionID, m.Event, m.Field, m.Snippet}, " "))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if st.Matches != len(tt.want) {
				t.Errorf("stats %+v, want %d matches", st, len(tt.want))
			}
		})
	}
}

func TestRunStopsAndFailsEmpty(t *testing.T) {
	l := project(t, map[string][]string{"pre_tool_use.json": {bash, bash, bash}})
	n := 0
	if _, err := Run(context.Background(), l, Query{Text: "go test"}, func(Match) error { n++; return logs.ErrStop }); err != nil || n != 1 {
		t.Fatalf("ErrStop: %d matches, err %v", n, err)
	}
	if _, err := Run(context.Background(), l, Query{}, func(Match) error { return nil }); !errors.Is(err, ErrEmpty) {
		t.Fatalf("empty query: %v", err)
	}
	missing := state.Layout{Root: t.TempDir()}
	if st, err := Run(context.Background(), missing, Query{Text: "x"}, func(Match) error { return nil }); err != nil || st.Files != 0 {
		t.Fatalf("no logs: %+v %v", st, err)
	}
}

func TestPrefilter(t *testing.T) {
	tests := []struct {
		text, fragment string
		fold           bool
	}{
		{"healthz endpoint", "healthz endpoint", true},
		{"src/auth/login.go", "login.go", true},
		{"TestHealthz", "TestHealthz", false},
		{`say "hi" & <b>`, "say ", true},
		{"café", "caf", true},
		{"日本", "", true},
	}
	for _, tt := range tests {
		m := newMatcher(Query{Text: tt.text})
		if string(m.fragment) != tt.fragment || m.fold != tt.fold {
			t.Errorf("%q: fragment %q fold %v, want %q %v", tt.text, m.fragment, m.fold, tt.fragment, tt.fold)
		}
	}
	for _, tt := range []struct {
		s, needle string
		want      bool
	}{
		{"xx HeAlThZ yy", "healthz", true},
		{"healthz", "healthz", true},
		{"healthy", "healthz", false},
		{"Zhealth", "healthz", false},
		{"h", "healthz", false},
		{"a.GO", ".go", true},
	} {
		if got := containsFold([]byte(tt.s), []byte(tt.needle)); got != tt.want {
			t.Errorf("containsFold(%q, %q) = %v", tt.s, tt.needle, got)
		}
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("a", 200)
	tests := []struct {
		s, match, want string
	}{
		{"short text", "text", "short text"},
		{"line one\n\tline two", "two", "line one line two"},
		{long + " needle " + long, "needle", "…" + strings.Repeat("a", 29) + " needle " + strings.Repeat("a", 62) + "…"},
		{"\x1b]0;title\x07x needle", "needle", "x needle"},
	}
	for _, tt := range tests {
		i := strings.Index(tt.s, tt.match)
		if got := Snippet(tt.s, i, len(tt.match)); got != tt.want {
			t.Errorf("Snippet(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
}
