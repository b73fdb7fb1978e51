//go:build !linux

package safefs

import "os"

// replaceViaSpare is Replace without fsync where renameat2's exchange does
// not exist.
func replaceViaSpare(root *os.Root, name string, data []byte, perm os.FileMode) error {
	return Replace(root, name, data, perm, false)
}
