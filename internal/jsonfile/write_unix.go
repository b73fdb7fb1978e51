//go:build !windows

package jsonfile

import (
	"path/filepath"

	"github.com/google/renameio/v2"
)

// writeAtomic writes a temp file in the same folder, fsyncs it and renames it
// over path (github.com/google/renameio). The temp folder is given
// explicitly: left to itself renameio would probe os.TempDir with an extra
// create and rename on every write.
func writeAtomic(path string, data []byte) error {
	return renameio.WriteFile(path, data, 0o644, renameio.WithTempDir(filepath.Dir(path)))
}
