//go:build unix

package safefs

import (
	"os"
	"syscall"
)

// PrivateDir says what is wrong with dir as the user's private folder
// (problem "" when nothing is): a real directory, not a symlink, owned by
// the user, with no access for group or others. err is Lstat's own error,
// as it is (a missing folder is not an unsafe one). It makes one lstat:
// the hook calls it for the dashboard's answer channel, the dashboard for
// a recorded tmux socket's folder.
func PrivateDir(dir string) (problem string, err error) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return "is a symlink", nil
	case !fi.IsDir():
		return "is not a directory", nil
	case Owner(fi) != os.Getuid():
		return "is not yours", nil
	case fi.Mode().Perm()&0o077 != 0:
		return "others can enter", nil
	}
	return "", nil
}

// Owner is fi's owner's uid (-1 when unknown).
func Owner(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
