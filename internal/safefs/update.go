package safefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// OpenOwn opens name below root, a small file spcstr keeps for itself (read
// and written in place with pread and pwrite), with flag: os.O_RDONLY or
// os.O_RDWR, optionally with os.O_CREATE. Only a regular file that name
// itself is will do: a symlink at name is refused, not followed (not even
// to a file inside root), and so are a folder, FIFO, device or socket
// (errors wrapping ErrNotRegular); a file over max bytes is an ErrTooLarge
// error. With os.O_CREATE a missing file is created exclusively (perm) and
// returned empty. Nothing blocks: a FIFO is opened without waiting for the
// other end, then refused. The caller closes the file; on error there is
// none.
func OpenOwn(root *os.Root, name string, flag int, perm os.FileMode, max int64) (*os.File, fs.FileInfo, error) {
	path := filepath.Join(root.Name(), name)
	create := flag&os.O_CREATE != 0
	flag = flag&^(os.O_CREATE|os.O_EXCL) | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	f, err := root.OpenFile(name, flag, 0)
	created := false
	if create && errors.Is(err, fs.ErrNotExist) {
		// O_EXCL never follows a symlink, dangling or not.
		f, err = root.OpenFile(name, flag|os.O_CREATE|os.O_EXCL, perm)
		created = err == nil
		if errors.Is(err, fs.ErrExist) {
			f, err = root.OpenFile(name, flag, 0) // created meanwhile
		}
	}
	if err != nil {
		if errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENXIO) {
			return nil, nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%v)", ErrNotRegular, err)}
		}
		if li, lerr := root.Lstat(name); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			// Leading out of root, dangling, or to a FIFO: refused alike.
			return nil, nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (a symlink)", ErrNotRegular)}
		}
		return nil, nil, err
	}
	f, fi, err := checkRegular(f, path)
	if err != nil {
		return nil, fi, err
	}
	if !created {
		// The open followed a symlink if name is one: lstat says.
		li, err := root.Lstat(name)
		if err != nil || !os.SameFile(fi, li) {
			f.Close()
			return nil, fi, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (a symlink)", ErrNotRegular)}
		}
	}
	if fi.Size() > max {
		f.Close()
		return nil, fi, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%d bytes, limit %d)", ErrTooLarge, fi.Size(), max)}
	}
	return f, fi, nil
}
