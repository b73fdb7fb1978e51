//go:build unix

package registry

import (
	"errors"
	"syscall"
)

// Alive reports whether a process with this pid exists (signal 0). It calls
// kill(2) directly: os.FindProcess would first probe pidfd support by
// cloning a child process, which costs more than the rest of a hook.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
