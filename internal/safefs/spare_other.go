//go:build !linux

package safefs

import (
	"bytes"
	"os"
)

// replaceViaSpare is Replace without fsync where renameat2's exchange does
// not exist.
func replaceViaSpare(root *os.Root, name string, pieces [][]byte, perm os.FileMode) error {
	return Replace(root, name, bytes.Join(pieces, nil), perm, false)
}
