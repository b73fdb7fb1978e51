package cmd

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/dylan-gluck/spcstr/internal/claudesettings"
	"github.com/dylan-gluck/spcstr/state"
)

// projectRoot is the project the user's commands act on: the nearest
// folder up from the working directory that holds .spcstr/, else the git
// top level, else the working directory (docs/layout.md).
func projectRoot() (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find the current folder: %w", err)
	}
	return state.FindRoot("", cwd), nil
}

// hookCommand is the command init registers for the running binary.
func hookCommand() (claudesettings.HookCommand, error) {
	exe, err := os.Executable()
	if err != nil {
		return claudesettings.HookCommand{}, fmt.Errorf("find the spcstr binary: %w", err)
	}
	return claudesettings.ResolveCommand(exe, exec.LookPath), nil
}
