package notifier

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// StartDetached returns before the command finishes (the command waits for
// a file the test writes only afterwards), and the command reads the
// message as JSON on stdin and in SPCSTR_MESSAGE, in dir.
func TestStartDetached(t *testing.T) {
	dir := t.TempDir()
	m := Message{SessionID: "s1", Event: "Stop", Status: "finished", Message: "Claude finished (p)", ProjectDir: dir}
	cmd := `while [ ! -f go ]; do sleep 0.02; done; cat > out.json; printf '%s\n' "$SPCSTR_MESSAGE" > msg.txt`
	if err := StartDetached(cmd, m, dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	msg := waitLine(t, filepath.Join(dir, "msg.txt"))
	if string(msg) != m.Message+"\n" {
		t.Errorf("SPCSTR_MESSAGE = %q", msg)
	}
	var got Message
	if err := json.Unmarshal(waitLine(t, filepath.Join(dir, "out.json")), &got); err != nil || got != m {
		t.Errorf("stdin = %+v, %v; want %+v", got, err, m)
	}
}

// waitLine waits for a file the detached command writes, ending in a
// newline.
func waitLine(t *testing.T, path string) []byte {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && len(data) > 0 && data[len(data)-1] == '\n' {
			return data
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
	return nil
}
