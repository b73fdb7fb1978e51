package doctor

import (
	"context"
	"fmt"
	"os"
	"time"

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
