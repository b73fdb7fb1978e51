package recorder

import (
	"reflect"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

// applyPayloads applies hook payloads, in order, to a fresh session.
func applyPayloads(t *testing.T, root string, payloads ...string) *state.Session {
	t.Helper()
	s := state.New("s1", root, time.Unix(0, 0).UTC())
	for i, p := range payloads {
		ev, err := hookio.Decode([]byte(p))
		if err != nil {
			t.Fatalf("payload %d: %v", i, err)
		}
		a := &applier{ev: ev, name: ev.Name(""), now: time.Unix(int64(i+1), 0).UTC(), root: root}
		a.apply(s)
	}
	return s
}

// A file created and then changed in one session is both new and edited
// (docs/state.md: Edit is edited; a Write that does not create is edited), as the
// real client's basic and cwd scenarios do (e2e).
func TestFilesCreatedThenEdited(t *testing.T) {
	s := applyPayloads(t, "/p",
		`{"session_id":"s1","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/p/a.txt"},"tool_response":{"type":"create"}}`,
		`{"session_id":"s1","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"/p/a.txt"}}`,
		`{"session_id":"s1","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/p/b.txt"},"tool_response":{"type":"create"}}`,
		`{"session_id":"s1","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/p/b.txt"},"tool_response":{"type":"update"}}`,
		`{"session_id":"s1","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"/p/a.txt"}}`,
	)
	want := state.Files{New: []string{"a.txt", "b.txt"}, Edited: []string{"a.txt", "b.txt"}, Read: []string{}}
	if !reflect.DeepEqual(s.Files, want) {
		t.Errorf("files %+v, want %+v", s.Files, want)
	}
}
