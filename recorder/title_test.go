package recorder

import (
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/state"
)

// A session's title: its first prompt (a task notification is not one),
// else its first main-chain tool call; a prompt replaces a tool's title,
// a later prompt does not replace the first.
func TestTitle(t *testing.T) {
	for _, tt := range []struct {
		name     string
		payloads []string
		title    string
		source   string
	}{
		{"nothing yet", []string{start("startup")}, "", ""},
		{"first prompt, one line", []string{start("startup"), prompt("  Add a healthz\nendpoint  "), prompt("and more")}, "Add a healthz endpoint", state.TitlePrompt},
		{"task notification is no title", []string{prompt("<task-notification>done</task-notification>"), prompt("Real work")}, "Real work", state.TitlePrompt},
		{"first tool call", []string{pre("Bash", "t1", `{"command":"go test ./...","description":"Run the tests"}`), pre("Read", "t2", `{"file_path":"/x"}`)}, "Bash: Run the tests", state.TitleTool},
		{"a file path, relative", []string{pre("Read", "t1", `{"file_path":"`+root+`/cmd/main.go"}`)}, "Read: cmd/main.go", state.TitleTool},
		{"a search pattern", []string{pre("Grep", "t1", `{"pattern":"TODO","path":"."}`)}, "Grep: TODO", state.TitleTool},
		{"a subagent's call is not the session's", []string{inAgent(pre("Bash", "t1", `{"command":"ls"}`), "a1", "Explore")}, "", ""},
		{"a prompt after a tool call wins", []string{pre("Bash", "t1", `{"command":"ls"}`), prompt("Now the real task")}, "Now the real task", state.TitlePrompt},
		{"cut to TitleBytes", []string{prompt(strings.Repeat("word ", 100))}, strings.TrimSpace(strings.Repeat("word ", 40)), state.TitlePrompt},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := play(t, root, tt.payloads...)
			if s.Title != tt.title || s.TitleSource != tt.source {
				t.Errorf("title %q (%s), want %q (%s)", s.Title, s.TitleSource, tt.title, tt.source)
			}
		})
	}
}
