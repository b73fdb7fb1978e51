//go:build !unix

package safefs

import (
	"io"
	"os"
)

// ReadHead reads the start of a small file spcstr keeps for itself (up to
// len(buf) bytes): name must be a regular file in the folder dir, not a
// symlink (OpenOwn). It returns the bytes read and the file's size.
func ReadHead(dir, name string, buf []byte) (n int, size int64, err error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, 0, err
	}
	defer root.Close()
	f, fi, err := OpenOwn(root, name, os.O_RDONLY, 0, 1<<62)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	n, err = f.ReadAt(buf, 0)
	if err == io.EOF {
		err = nil
	}
	return n, fi.Size(), err
}
