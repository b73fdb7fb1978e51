//go:build !unix

package boundedcmd

import "os/exec"

// ownGroup: without process groups, cancellation kills the process itself
// (exec's default), and WaitDelay closes what its children hold.
func ownGroup(*exec.Cmd) {}
