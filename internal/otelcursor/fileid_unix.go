//go:build unix

package otelcursor

import (
	"io/fs"
	"syscall"
)

// FileID is a file's inode number (0 when unknown).
func FileID(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
