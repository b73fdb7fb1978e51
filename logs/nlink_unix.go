//go:build linux

package logs

import (
	"io/fs"
	"syscall"
)

// emptyDir tells from a folder's link count that it has no subfolders.
func emptyDir(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 2
}
