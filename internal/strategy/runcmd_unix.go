//go:build unix

package strategy

import (
	"os/exec"
	"syscall"
)

// setGroup starts cmd in a process group of its own (runCommand).
func setGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killTree kills cmd's process group: the command and whatever it left
// running.
func killTree(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
