//go:build unix

package notifier

import (
	"os"
	"os/exec"
	"syscall"
)

// detach starts cmd in a session of its own, so that it outlives the hook
// and no terminal signal reaches it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

func openTTY() (*os.File, error) {
	return os.OpenFile("/dev/tty", os.O_WRONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
