// Command spcstr makes Claude Code sessions visible and keeps them honest:
// the hook recorder, the live dashboard, requirements, exports and setup in
// one binary.
//
// The hook runs once per Claude Code event and lives a few milliseconds, so
// the runtime skips what only long-running processes need: reading the
// cgroup CPU limit at start (a handful of file reads and a parse of
// /proc/self/mountinfo) and re-checking it from sysmon.
//
//go:debug containermaxprocs=0
//go:debug updatemaxprocs=0
package main

import (
	"os"

	"github.com/dylan-gluck/spcstr/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
