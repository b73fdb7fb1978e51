// Package safefs owns how spcstr touches files that a repository controls.
// A repository is untrusted input: its .claude/ and .spcstr/ folders can hold
// symlinks to /dev/zero, FIFOs, directories where files belong, and symlinks
// that lead out of the project. Every read of such a file goes through
// ReadFile or Open, which open only regular files (without blocking on a
// FIFO) and cap how much is read; every write, lock and rename below .spcstr/
// goes through a Root from Beneath, which refuses to follow any path out of
// the folder it is rooted at.
package safefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// MaxConfigBytes caps a configuration file (YAML, JSON) read from a
// repository. A file over it is reported as an error, never read whole.
const MaxConfigBytes = 4 << 20

// MaxStateBytes caps a JSON document spcstr keeps itself (state.json, the
// registry, a requirements state file).
const MaxStateBytes = 64 << 20

// ErrNotRegular is returned for a path that is not a regular file (a FIFO,
// device, socket or directory).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned for a file larger than the caller's cap.
var ErrTooLarge = errors.New("file too large")

// openFlags never block on a FIFO's open and never leak the fd to children.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC

// Open opens path for reading only if it is a regular file (it may be
// reached through symlinks). The check is one fstat on the open file, so
// nothing can swap the file between check and read. The returned info is
// that fstat.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	return checkRegular(f, path)
}

func checkRegular(f *os.File, path string) (*os.File, fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
	}
	return f, fi, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

// ReadFile reads the regular file at path, at most max bytes; a larger file
// is an ErrTooLarge error. A missing file is reported with fs.ErrNotExist.
func ReadFile(path string, max int64) ([]byte, error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, fi, path, max)
}

// ReadFileIn is ReadFile for a name below root.
func ReadFileIn(root *os.Root, name string, max int64) ([]byte, error) {
	f, fi, err := OpenIn(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, fi, filepath.Join(root.Name(), name), max)
}

// OpenIn is Open for a name below root: no component may lead out of it.
func OpenIn(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	return checkRegular(f, filepath.Join(root.Name(), name))
}

func readAll(f *os.File, fi fs.FileInfo, path string, max int64) ([]byte, error) {
	if fi.Size() > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%d bytes, limit %d)", ErrTooLarge, fi.Size(), max)}
	}
	// The size may change under us (a file still being written); read at
	// most max+1 bytes whatever it says.
	buf := make([]byte, 0, fi.Size()+512)
	buf, err := readLimited(f, buf, max+1)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(buf)) > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (over %d bytes)", ErrTooLarge, max)}
	}
	return buf, nil
}

func readLimited(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	lr := io.LimitReader(r, limit)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				return buf, nil
			}
			return buf, err
		}
	}
}
