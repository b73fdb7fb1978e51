//go:build windows

package jsonfile

import (
	"os"
	"path/filepath"
)

// writeAtomic writes a temp file in the same folder, fsyncs it and renames it
// over path. renameio does not support Windows; os.Rename there uses
// MoveFileEx with MOVEFILE_REPLACE_EXISTING, which replaces the file in one
// step.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		_ = os.Remove(tmp)
	}
	return werr
}
