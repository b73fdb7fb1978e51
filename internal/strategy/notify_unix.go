//go:build unix

package strategy

import (
	"os/exec"
	"syscall"
)

// killGroup makes cancelling cmd kill its whole process group, so that a
// timed-out shell cannot leave its children holding the output pipe.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
