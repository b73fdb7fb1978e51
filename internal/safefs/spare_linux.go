//go:build linux

package safefs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// exchange swaps the names a and b in the folder dirfd in one step. A
// variable so that tests can make the swap unsupported or fail.
var exchange = func(dirfd int, a, b string) error {
	return unix.Renameat2(dirfd, a, dirfd, b, unix.RENAME_EXCHANGE)
}

// spareOpenFlags open the spare for writing without following a symlink,
// blocking on a FIFO or taking a terminal.
const spareOpenFlags = unix.O_RDWR | unix.O_CREAT | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC

func replaceViaSpare(root *os.Root, name string, pieces [][]byte, perm os.FileMode) error {
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	// The folder is resolved inside root; from here on every call names
	// an entry of that folder directly (openat, renameat2), so nothing
	// follows a symlink out of it.
	d, err := root.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open folder of %s: %w", name, err)
	}
	defer d.Close()
	sc, err := d.SyscallConn()
	if err != nil {
		return fmt.Errorf("open folder of %s: %w", name, err)
	}
	spare := spareBase(base)
	var opErr error
	if err := sc.Control(func(fd uintptr) { opErr = swapIn(int(fd), base, spare, pieces, perm) }); err != nil {
		return err
	}
	if errors.Is(opErr, errNoSpare) {
		// A spare that cannot be made (a non-empty folder planted in its
		// place): write the way every other document is written.
		return Replace(root, name, bytes.Join(pieces, nil), perm, false)
	}
	return opErr
}

// errNoSpare reports a spare that could not be opened or made.
var errNoSpare = errors.New("no usable spare file")

// swapIn writes data into the spare of the folder dirfd and swaps it with
// base.
func swapIn(dirfd int, base, spare string, pieces [][]byte, perm os.FileMode) error {
	fd, err := openSpare(dirfd, spare, perm)
	if err != nil {
		return fmt.Errorf("%w %s: %v", errNoSpare, spare, err)
	}
	if err := fill(fd, pieces); err != nil {
		unix.Close(fd)
		return fmt.Errorf("write %s: %w", spare, err)
	}
	if err := unix.Close(fd); err != nil {
		return fmt.Errorf("write %s: %w", spare, err)
	}
	err = exchange(dirfd, spare, base)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ENOENT), // no document yet: the spare becomes it
		errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP),
		errors.Is(err, unix.EPERM): // no swap here (file system, old kernel, seccomp)
		if err := unix.Renameat(dirfd, spare, dirfd, base); err != nil {
			return fmt.Errorf("rename %s to %s: %w", spare, base, err)
		}
		return nil
	}
	return fmt.Errorf("swap %s and %s: %w", spare, base, err)
}

// openSpare opens the spare for writing, creating it if missing. Anything
// at its name that is not a regular file with one link, owned by this user
// and with no permission bits beyond perm, is removed and the spare
// created anew: spcstr never writes through what a repository planted.
func openSpare(dirfd int, spare string, perm os.FileMode) (int, error) {
	mode := uint32(perm.Perm())
	fd, err := unix.Openat(dirfd, spare, spareOpenFlags, mode)
	if err == nil {
		var st unix.Stat_t
		if err = unix.Fstat(fd, &st); err == nil && usableSpare(&st, mode) {
			return fd, nil
		}
		unix.Close(fd)
	}
	if unix.Unlinkat(dirfd, spare, 0) != nil {
		_ = unix.Unlinkat(dirfd, spare, unix.AT_REMOVEDIR) // an empty folder
	}
	fd, err = unix.Openat(dirfd, spare, spareOpenFlags|unix.O_EXCL, mode)
	if err != nil {
		return -1, err
	}
	return fd, nil
}

func usableSpare(st *unix.Stat_t, perm uint32) bool {
	return st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink == 1 &&
		st.Uid == uint32(os.Geteuid()) && st.Mode&0o7777&^perm == 0
}

// iovMax is the most pieces one pwritev takes (IOV_MAX on Linux).
const iovMax = 1024

// fill makes the file fd hold exactly the pieces, in order: written from
// offset 0 with pwritev, then cut to their length. (Cutting to zero first
// would make ext4 flush the file on the rename, as it does for a new file.)
func fill(fd int, pieces [][]byte) error {
	var total int64
	nonEmpty := make([][]byte, 0, len(pieces))
	for _, p := range pieces {
		if len(p) > 0 {
			total += int64(len(p))
			nonEmpty = append(nonEmpty, p)
		}
	}
	pieces = nonEmpty
	for off := int64(0); len(pieces) > 0; {
		n, err := unix.Pwritev(fd, pieces[:min(len(pieces), iovMax)], off)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return err
		}
		if n == 0 {
			return io.ErrShortWrite
		}
		off += int64(n)
		for n > 0 && len(pieces) > 0 { // skip what was written
			if n >= len(pieces[0]) {
				n -= len(pieces[0])
				pieces = pieces[1:]
			} else {
				pieces = append([][]byte{pieces[0][n:]}, pieces[1:]...)
				n = 0
			}
		}
	}
	return unix.Ftruncate(fd, total)
}
