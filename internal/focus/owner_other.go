//go:build !unix

package focus

func uid() int { return -1 }

// Without Unix ownership to check, no recorded socket is trusted.
func ownedPrivateDir(string) string { return "cannot be checked on this system" }
func sharedDir(string) string       { return "cannot be checked on this system" }
func ownedSocket(string) string     { return "cannot be checked on this system" }
