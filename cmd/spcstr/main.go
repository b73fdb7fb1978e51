// Command spcstr makes Claude Code sessions visible and keeps them honest:
// the hook recorder, the live dashboard, requirements, exports and setup in
// one binary.
package main

import (
	"os"

	"github.com/dylan-gluck/spcstr/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
