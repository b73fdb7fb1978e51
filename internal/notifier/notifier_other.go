//go:build !unix

package notifier

import (
	"errors"
	"os"
	"os/exec"
)

func detach(*exec.Cmd) {}

func openTTY() (*os.File, error) { return nil, errors.New("no terminal bell on this system") }
