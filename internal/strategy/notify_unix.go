//go:build unix

package strategy

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

// killGroup makes cancelling cmd kill its whole process group, so that a
// timed-out shell cannot leave its children holding the output pipe.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
