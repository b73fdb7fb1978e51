//go:build unix

package boundedcmd

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd as the leader of a new process group and makes its
// cancellation kill the whole group.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
