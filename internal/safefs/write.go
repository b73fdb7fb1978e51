package safefs

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// WriteAtomic replaces name below root with data: a temp file in the same
// folder (".<name><random>"), fsync, rename. Readers see the old document
// or the new one, never a mix, even if the process is killed mid-write; a
// failed write leaves the old document and no temp file behind.
func WriteAtomic(root *os.Root, name string, data []byte, perm os.FileMode) error {
	return Replace(root, name, data, perm, true)
}

// Replace is WriteAtomic with the fsync optional: without it the rename is
// still atomic for readers, but a power loss may leave the old document
// (fine for a file that can be rebuilt).
func Replace(root *os.Root, name string, data []byte, perm os.FileMode, durable bool) error {
	dir, base := filepath.Split(name)
	var (
		f   *os.File
		tmp string
		err error
	)
	for range 100 {
		tmp = dir + "." + base + strconv.FormatUint(uint64(rand.Uint32()), 10)
		f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_TRUNC, perm)
		if !errors.Is(err, os.ErrExist) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("create temp file: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			_ = root.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if durable {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := root.Rename(tmp, name); err != nil {
		return err
	}
	ok = true
	return nil
}

// IsTempName recognises the temporary files of atomic writes (Replace's,
// and the Python framework's ".tmp-" ones): "." + a .json or .yaml file
// name + (".tmp-" or nothing) + decimal digits. A killed writer leaves one
// behind.
func IsTempName(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	base := strings.TrimRight(name[1:], "0123456789")
	if len(base) == len(name)-1 {
		return false
	}
	base = strings.TrimSuffix(base, ".tmp-")
	return strings.HasSuffix(base, ".json") || strings.HasSuffix(base, ".yaml")
}

// RemoveStaleTemps removes, from the folder dir below root, the temporary
// files of base ("." + base + digits) last changed before cutoff: a writer
// killed between creating and renaming its temp file leaves one, and no
// live writer keeps one for long. Only regular files are removed. It
// returns how many were.
func RemoveStaleTemps(root *os.Root, dir, base string, cutoff time.Time) (int, error) {
	d, err := root.Open(dir)
	if err != nil {
		return 0, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, name := range names {
		digits := strings.TrimPrefix(name, "."+base)
		if len(digits) == len(name) || digits == "" || strings.Trim(digits, "0123456789") != "" {
			continue
		}
		p := filepath.Join(dir, name)
		fi, err := root.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || !fi.ModTime().Before(cutoff) {
			continue
		}
		if root.Remove(p) == nil {
			removed++
		}
	}
	return removed, nil
}
