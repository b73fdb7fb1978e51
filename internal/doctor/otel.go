package doctor

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/dylan-gluck/spcstr/internal/install"
	"github.com/dylan-gluck/spcstr/internal/otelcursor"
)

// otelBehindBytes is how much unshipped log makes the otel cursor "far
// behind": about a thousand hook events.
const otelBehindBytes = 1 << 20

// otelStale is how old a cursor with anything unshipped may be before it
// counts as far behind.
const otelStale = 24 * time.Hour

// checkOtel reports a project whose spcstr otel shipping has fallen far
// behind its logs. Projects that never ran spcstr otel get no finding.
func checkOtel(_ context.Context, env *Env) []Finding {
	l := env.Layout()
	path := otelcursor.Path(l)
	if _, err := os.Lstat(path); err != nil {
		return nil
	}
	c, corrupt, err := otelcursor.Peek(l)
	if err != nil {
		return []Finding{{Severity: Warning, Path: path, Message: err.Error(), Fix: "check the file's permissions"}}
	}
	if corrupt != nil {
		return []Finding{{Severity: Warning, Path: path,
			Message: fmt.Sprintf("%s is damaged (%v): the next spcstr otel sets it aside and ships everything again", env.Rel(path), corrupt),
			Fix:     "run spcstr otel (the receiver gets the same ids again, so it can drop the copies)"}}
	}
	behind, files, err := otelcursor.Behind(l, c)
	if err != nil {
		return []Finding{{Severity: Warning, Path: l.LogsDir(), Message: fmt.Sprintf("cannot measure the otel backlog: %v", err), Fix: "check .spcstr/logs' permissions"}}
	}
	last := "never"
	if !c.UpdatedAt.IsZero() {
		last = c.UpdatedAt.UTC().Format(time.RFC3339)
	}
	switch {
	case behind == 0:
		return []Finding{{Severity: OK, Message: fmt.Sprintf("spcstr otel is up to date (last shipped %s to %s)", last, c.Endpoint)}}
	case behind > otelBehindBytes || env.Now.Sub(c.UpdatedAt) > otelStale:
		return []Finding{{Severity: Warning, Path: path,
			Message: fmt.Sprintf("spcstr otel is far behind: %d KiB in %d log files not shipped (last shipped %s to %s)", (behind+1023)/1024, files, last, c.Endpoint),
			Fix:     "run spcstr otel, or keep spcstr otel --follow running"}}
	default:
		return []Finding{{Severity: Info, Message: fmt.Sprintf("spcstr otel has %d KiB to ship (last shipped %s)", (behind+1023)/1024, last)}}
	}
}

// checkCompanions: spcstr tui (and demo, replay), spcstr otel and
// Python-only command patterns run companion binaries found next to
// spcstr or on PATH.
func checkCompanions(_ context.Context, env *Env) []Finding {
	var out []Finding
	for _, name := range install.Companions {
		p, ok := install.FindCompanion(name, resolve(env.Executable), env.LookPath)
		switch {
		case ok:
			out = append(out, Finding{Severity: OK, Message: name + " is installed", Path: p})
		case name == "spcstr-tui":
			// Info, not a warning: recording works without it.
			out = append(out, Finding{Severity: Info,
				Message: "spcstr-tui is not installed next to spcstr or on PATH: spcstr tui, demo and replay cannot open the dashboard",
				Fix:     "install it beside spcstr: go install github.com/dylan-gluck/spcstr/cmd/spcstr-tui (from a checkout: go install ./cmd/spcstr-tui)"})
		case name == "spcstr-pyre":
			out = append(out, Finding{Severity: Info,
				Message: "spcstr-pyre is not installed next to spcstr or on PATH: a requirement command_pattern that only Python's syntax accepts (a look-around, a back-reference) never matches without it",
				Fix:     "install it beside spcstr: go install github.com/dylan-gluck/spcstr/cmd/spcstr-pyre (from a checkout: go install ./cmd/spcstr-pyre)"})
		default:
			out = append(out, Finding{Severity: Info,
				Message: name + " is not installed: spcstr otel needs it (nothing else does)",
				Fix:     "go install github.com/dylan-gluck/spcstr/cmd/" + name + " when you want to ship to OpenTelemetry"})
		}
	}
	return out
}
