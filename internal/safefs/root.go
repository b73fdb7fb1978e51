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

// ErrOutside is wrapped by the errors of OpenInProject, ReadFileInProject
// and Within for a path that leads out of the project: absolute
// outside it, through "..", or through a symlink that points out.
var ErrOutside = errors.New("leads outside the project")

// projectRel makes name (relative to root, or absolute inside it) a path
// relative to root, or fails with ErrOutside.
func projectRel(root, name string) (string, error) {
	p := filepath.FromSlash(name)
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(filepath.Clean(root), filepath.Clean(p))
		if err != nil {
			return "", &fs.PathError{Op: "open", Path: name, Err: ErrOutside}
		}
		p = r
	}
	p = filepath.Clean(p)
	if p == ".." || strings.HasPrefix(p, ".."+string(filepath.Separator)) || filepath.IsAbs(p) {
		return "", &fs.PathError{Op: "open", Path: name, Err: ErrOutside}
	}
	return p, nil
}

// OpenInProject opens a file a repository's configuration names (a
// progress file, a feature list, a schema, a manifest, a limits file): a
// regular file inside the project root, reached through no "..", and no
// symlink that leads out of root (os.Root). Refusals wrap ErrOutside or
// ErrNotRegular; the caller reports them.
func OpenInProject(root, name string) (*os.File, fs.FileInfo, error) {
	rel, err := projectRel(root, name)
	if err != nil {
		return nil, nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	f, fi, err := OpenIn(r, rel)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrNotRegular) && strings.Contains(err.Error(), "escapes") {
		// os.Root's error for a symlink out of it is not exported.
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (%v)", ErrOutside, err)}
	}
	return f, fi, err
}

// ReadFileInProject is ReadFile for a file OpenInProject accepts.
func ReadFileInProject(root, name string, max int64) ([]byte, error) {
	f, fi, err := OpenInProject(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, fi, name, max)
}
