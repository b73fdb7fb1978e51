//go:build !unix

package registry

import "os"

// Alive reports whether a process with this pid exists. Where signal 0 is
// not available, finding the process is the best test there is.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
