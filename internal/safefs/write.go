package safefs

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// WriteAtomic replaces name below root with data: a temp file in the same
// folder (".<name><random>"), fsync, rename. Readers see the old document
// or the new one, never a mix, even if the process is killed mid-write; a
// failed write leaves the old document and no temp file behind.
func WriteAtomic(root *os.Root, name string, data []byte, perm os.FileMode) error {
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
	if err := f.Sync(); err != nil {
		return err
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
