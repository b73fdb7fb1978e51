//go:build unix

package safefs

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ReadHead reads the start of a small file spcstr keeps for itself (up to
// len(buf) bytes) as cheaply as a check on every hook must: the folder dir
// must be a real folder, not a symlink, and name a regular file in it, not
// a symlink (O_NOFOLLOW); a FIFO is opened without blocking, then refused.
// It returns the bytes read and the file's size; a size other than the
// caller expects means the file is not the caller's. Errors wrap
// ErrNotRegular for anything that is not such a file, fs.ErrNotExist for
// none.
func ReadHead(dir, name string, buf []byte) (n int, size int64, err error) {
	var st syscall.Stat_t
	if err := ignoringEINTR(func() error { return syscall.Lstat(dir, &st) }); err != nil {
		return 0, 0, &os.PathError{Op: "lstat", Path: dir, Err: err}
	}
	if uint32(st.Mode)&syscall.S_IFMT != syscall.S_IFDIR {
		return 0, 0, &os.PathError{Op: "open", Path: dir, Err: fmt.Errorf("%w (not a real folder)", ErrNotRegular)}
	}
	path := filepath.Join(dir, name)
	var fd int
	err = ignoringEINTR(func() (err error) {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		if err == syscall.ELOOP || err == syscall.ENXIO {
			err = fmt.Errorf("%w (%v)", ErrNotRegular, err)
		}
		return 0, 0, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	if err := syscall.Fstat(fd, &st); err != nil {
		return 0, 0, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if uint32(st.Mode)&syscall.S_IFMT != syscall.S_IFREG {
		return 0, 0, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	err = ignoringEINTR(func() (err error) {
		n, err = syscall.Pread(fd, buf, 0)
		return err
	})
	if err != nil {
		return 0, st.Size, &os.PathError{Op: "read", Path: path, Err: err}
	}
	return n, st.Size, nil
}

func ignoringEINTR(fn func() error) error {
	for {
		if err := fn(); err != syscall.EINTR {
			return err
		}
	}
}
