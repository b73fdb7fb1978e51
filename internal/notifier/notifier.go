// Package notifier delivers the notify strategy's notifications outside
// Claude Code: the terminal's bell, and the user's notification command,
// started detached with the notification as JSON on stdin. It never
// blocks: the hook pays at most a fork.
package notifier

import (
	"encoding/json"
	"os"
	"os/exec"
)

// Message is what the notify command reads on stdin.
type Message struct {
	SessionID  string `json:"session_id"`
	Event      string `json:"event"`
	Status     string `json:"status"`
	Message    string `json:"message"`
	ProjectDir string `json:"project_dir"`
}

// RingBell writes BEL to the controlling terminal, if there is one. The
// terminal is opened non-blocking: a stopped terminal cannot hold the hook.
func RingBell() bool {
	f, err := openTTY()
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = f.Write([]byte{'\a'})
	return err == nil
}

// StartDetached starts command with sh -c in its own session, m as JSON on
// stdin (written whole into the pipe before returning: it is smaller than
// any pipe buffer) and SPCSTR_MESSAGE set, output discarded, not waited for.
func StartDetached(command string, m Message, dir string) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer w.Close()
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	cmd.Stdin = r
	cmd.Env = append(os.Environ(), "SPCSTR_MESSAGE="+m.Message, "SPCSTR_EVENT="+m.Event, "SPCSTR_STATUS="+m.Status)
	detach(cmd)
	err = cmd.Start()
	r.Close()
	if err != nil {
		return err
	}
	// A command that does not read its input may be gone already: the
	// write error (EPIPE) is its business, not the hook's.
	_, _ = w.Write(append(data, '\n'))
	// Not waited for: the hook exits and the command is adopted by init.
	return cmd.Process.Release()
}
