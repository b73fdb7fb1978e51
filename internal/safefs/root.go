package safefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ContainerName is the folder whose contents may never lead out of it: a
// project's .spcstr. It may itself be a symlink the user made.
const ContainerName = ".spcstr"

// Beneath opens the root that contains path and returns path relative to
// it. The root is the nearest ancestor folder named .spcstr when there is
// one (so nothing below .spcstr/ — sessions/<id>, logs, a log file — can be
// a symlink out of it), else path's own folder (so at least the file itself
// cannot be a symlink elsewhere). The folder of the root itself is opened
// following symlinks. The caller closes the root.
func Beneath(path string) (*os.Root, string, error) {
	dir, rel := Split(path)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, "", fmt.Errorf("open folder %s: %w", dir, err)
	}
	return root, rel, nil
}

// BeneathCreate is Beneath for a writer: a missing root folder is created.
// A .spcstr folder is created only inside an existing folder (never a whole
// tree); any other root folder is created with its parents.
func BeneathCreate(path string) (*os.Root, string, error) {
	dir, rel := Split(path)
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if filepath.Base(dir) == ContainerName {
			err = os.Mkdir(dir, 0o755)
		} else {
			err = os.MkdirAll(dir, 0o755)
		}
		if err == nil || errors.Is(err, fs.ErrExist) {
			root, err = os.OpenRoot(dir)
		}
	}
	if err != nil {
		return nil, "", fmt.Errorf("open folder %s: %w", dir, err)
	}
	return root, rel, nil
}

// OpenRootCreate opens the folder dir below root as a root of its own,
// creating it (with its parents) first when it does not exist: the usual
// case, an existing folder, costs one open.
func OpenRootCreate(root *os.Root, dir string) (*os.Root, error) {
	sub, err := root.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		sub, err = root.OpenRoot(dir)
	}
	return sub, err
}

// Split is the folder Beneath roots path at, and path relative to it.
func Split(path string) (dir, rel string) {
	path = filepath.Clean(path)
	sep := string(filepath.Separator)
	marker := sep + ContainerName + sep
	if i := strings.LastIndex(path, marker); i >= 0 {
		return path[:i+len(marker)-1], path[i+len(marker):]
	}
	if strings.HasPrefix(path, ContainerName+sep) {
		return ContainerName, path[len(ContainerName)+1:]
	}
	return filepath.Dir(path), filepath.Base(path)
}
