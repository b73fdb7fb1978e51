package recorder

import (
	"context"
	"fmt"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/buildinfo"
	"github.com/dylan-gluck/spcstr/internal/statusline"
	"github.com/dylan-gluck/spcstr/internal/termtext"
)

// Usage is the hook's command line, printed for --help by both binaries
// that record (spcstr hook and spcstr-hook): they take the same arguments
// because both parse them with ParseArgs.
const Usage = `usage: spcstr hook [--dry-run] [EVENT] < EVENT.json
       spcstr-hook [--dry-run] [EVENT] < EVENT.json
       spcstr-hook --version

Reads one Claude Code hook event as JSON on stdin, updates the session's
state in .spcstr/sessions/<session_id>/state.json, appends the event to its
log under .spcstr/logs/, and prints a JSON answer only when a gate must
block or add context. EVENT is optional: the payload's hook_event_name
decides (SessionStart and session_start are both accepted).

It always exits 0: spcstr's own problems go to stderr and the session's
errors, never to Claude Code as a failure.

  --dry-run    every gate's decision is recorded, none enforced
               (as SPCSTR_DRY_RUN=1)
  --version    print the version line and exit
  --help       print this and exit

Unknown flags are ignored with a warning on stderr, and so are arguments
after EVENT: a hook command line is written once into settings.json and
must keep recording whatever version of spcstr runs it.`

// Args is a hook command line, parsed.
type Args struct {
	// Event is the optional EVENT argument.
	Event string
	// DryRun is --dry-run: record decisions, enforce none.
	DryRun bool
	// Version and Help ask for the version line or the usage instead of
	// recording.
	Version, Help bool
	// Ignored lists the arguments that mean nothing to the hook: unknown
	// flags and arguments after EVENT. They are reported, not fatal.
	Ignored []string
}

// ParseArgs parses the arguments after "spcstr hook" or "spcstr-hook".
// It never fails: a hook must record whatever its command line says, so
// what it does not understand is ignored and listed in Ignored.
func ParseArgs(args []string) Args {
	var a Args
	flags := true
	for _, s := range args {
		if flags && strings.HasPrefix(s, "-") && s != "-" {
			if s == "--" {
				flags = false
				continue
			}
			name, val, hasVal := strings.Cut(strings.TrimLeft(s, "-"), "=")
			switch name {
			case "dry-run":
				on, ok := true, true
				if hasVal {
					on, ok = parseBool(val)
				}
				if !ok {
					a.Ignored = append(a.Ignored, s)
					continue
				}
				a.DryRun = on
			case "version":
				a.Version = !hasVal
				if hasVal {
					a.Ignored = append(a.Ignored, s)
				}
			case "help", "h":
				a.Help = !hasVal
				if hasVal {
					a.Ignored = append(a.Ignored, s)
				}
			default:
				a.Ignored = append(a.Ignored, s)
			}
			continue
		}
		if a.Event == "" {
			a.Event = s
			continue
		}
		a.Ignored = append(a.Ignored, s)
	}
	return a
}

func parseBool(s string) (on, ok bool) {
	switch strings.ToLower(s) {
	case "1", "t", "true", "yes", "on":
		return true, true
	case "0", "f", "false", "no", "off":
		return false, true
	}
	return false, false
}

// Main is the one entry point of both binaries that record: spcstr-hook's
// main and spcstr's "hook" command pass it the arguments after the command
// name and the process's standard streams in opt. It returns the exit
// code: 0, always, when it records.
func Main(ctx context.Context, args []string, opt Options) int {
	opt.defaults()
	if len(args) > 0 && args[0] == StatusLine {
		// The status line command: never an event name.
		return statusline.Main(ctx, statusline.Options{Stdin: opt.Stdin, Stdout: opt.Stdout, Stderr: opt.Stderr,
			Getenv: opt.Getenv, Run: statusLineRun(args[1:])})
	}
	a := ParseArgs(args)
	switch {
	case a.Help:
		fmt.Fprintln(opt.Stdout, Usage)
		return 0
	case a.Version:
		fmt.Fprintln(opt.Stdout, buildinfo.String())
		return 0
	}
	if len(a.Ignored) > 0 {
		fmt.Fprintf(opt.Stderr, "spcstr hook: ignoring %s (spcstr hook --help lists what it takes)\n", quoteArgs(a.Ignored))
	}
	opt.Event = a.Event
	if a.DryRun {
		getenv := opt.Getenv
		opt.Getenv = func(k string) string {
			if k == "SPCSTR_DRY_RUN" {
				return "1"
			}
			return getenv(k)
		}
	}
	return Run(ctx, opt)
}

// StatusLine is the command word of the status line command
// (`spcstr statusline`, `spcstr-hook statusline`): never taken for an
// event name.
const StatusLine = "statusline"

// statusLineRun is the user's own status line command of a status line
// command line, `statusline [--run CMD]` ("" for none).
func statusLineRun(args []string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--run="); ok {
			return v
		}
		if a == "--run" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// quoteArgs quotes each argument for one line of stderr; Run's sanitiser
// is not in front of it yet, so control characters are escaped here.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, s := range args {
		q[i] = fmt.Sprintf("%q", termtext.Cut(s, 80))
	}
	return strings.Join(q, " ")
}
