//go:build unix

package focus

import (
	"os"

	"github.com/dylan-gluck/spcstr/internal/safefs"
)

func uid() int { return os.Getuid() }

func owner(fi os.FileInfo) int { return safefs.Owner(fi) }

// ownedPrivateDir says what is wrong with dir as the user's private
// directory ("" when nothing is).
func ownedPrivateDir(dir string) string {
	why, err := safefs.PrivateDir(dir)
	if err != nil {
		return "cannot be read (" + err.Error() + ")"
	}
	return why
}

// sharedDir says what is wrong with dir as a socket's directory: a real
// directory, the user's or root's, that others cannot write unless it is
// sticky (/tmp).
func sharedDir(dir string) string {
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return "cannot be read (" + err.Error() + ")"
	case fi.Mode()&os.ModeSymlink != 0:
		return "is a symlink"
	case !fi.IsDir():
		return "is not a directory"
	case owner(fi) != uid() && owner(fi) != 0:
		return "is not yours"
	case fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0:
		return "others can write"
	}
	return ""
}

// ownedSocket says what is wrong with path as the user's socket.
func ownedSocket(path string) string {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return "cannot be read (" + err.Error() + ")"
	case fi.Mode()&os.ModeSymlink != 0:
		return "is a symlink"
	case fi.Mode()&os.ModeSocket == 0:
		return "is not a socket"
	case owner(fi) != uid():
		return "is not yours"
	}
	return ""
}
