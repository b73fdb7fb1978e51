//go:build !unix

package safefs

import "os"

// PrivateDir: without Unix ownership to check, no folder is private.
func PrivateDir(string) (string, error) { return "cannot be checked on this system", nil }

// Owner is -1: ownership is unknown on this system.
func Owner(os.FileInfo) int { return -1 }
