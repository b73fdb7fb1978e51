package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dylan-gluck/spcstr/internal/claudesettings"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/internal/satmath"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// The fix texts of the findings spcstr doctor --fix mends; what it does
// is their Repair value.
const (
	fixRebuild  = "spcstr rebuild "
	fixDropTorn = "spcstr doctor --fix drops the torn lines of "
)

// checkRecords: the durable record and what is built from it. Event logs
// whose tail is torn, observability logs with torn lines, state.json
// files that do not parse (one section is enough), and states behind
// their logs (a hook killed between its log append and its state write).
func checkRecords(_ context.Context, env *Env) []Finding {
	l := env.Layout()
	var out []Finding
	found, _ := logs.List(l.LogsDir(), func(logs.File) bool { return true })
	counts := map[string]int{}
	for _, f := range found {
		if torn, err := tornTail(f.Path); err == nil && torn {
			out = append(out, Finding{Severity: Warning, Path: f.Path,
				Message: env.Rel(f.Path) + " ends in a torn entry (a hook stopped mid-append)",
				Fix:     "the next hook event mends it (the cut bytes are kept in repairs.json)"})
		}
		if f.Kind != logs.Events {
			continue
		}
		_ = logs.ScanFile(f.Path, func(raw []byte) error {
			var e struct {
				SessionID string `json:"session_id"`
			}
			if json.Unmarshal(raw, &e) == nil && state.ValidSessionID(e.SessionID) {
				counts[e.SessionID]++
			}
			return nil
		})
	}
	ids, _ := l.SessionIDs()
	for _, id := range ids {
		out = append(out, checkSession(env, l, id, counts[id])...)
	}
	if len(out) == 0 {
		return []Finding{{Severity: OK, Message: "logs whole, every state.json parses and is up to date with its logs"}}
	}
	return out
}

func checkSession(env *Env, l state.Layout, id string, logged int) []Finding {
	var out []Finding
	if p, err := l.ObservabilityPath(id); err == nil {
		if n, err := tornLines(p); err == nil && n > 0 {
			out = append(out, Finding{Severity: Warning, Path: p,
				Message: fmt.Sprintf("%s has %d torn lines (a write cut short, by a full disk or a kill)", env.Rel(p), n),
				Fix:     fixDropTorn + claudesettings.ShellQuote(env.Rel(p)),
				Repair:  Repair{Kind: RepairDropTorn, Path: p}})
		}
	}
	p, err := l.StatePath(id)
	if err != nil {
		return out
	}
	s, err := l.Load(id)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return out
	case err != nil:
		return append(out, Finding{Severity: Error, Path: p,
			Message: fmt.Sprintf("%s does not parse: %v", env.Rel(p), err),
			Fix:     fixRebuild + claudesettings.ShellQuote(id) + " (or spcstr doctor --fix)",
			Repair:  Repair{Kind: RepairRebuildState, Session: id}})
	}
	total := 0
	for _, n := range s.EventCounts {
		total = satmath.Add(total, n)
	}
	if total < logged {
		out = append(out, Finding{Severity: Warning, Path: p,
			Message: fmt.Sprintf("%s is %d events behind its logs (a hook was killed between its log and its state write)", env.Rel(p), logged-total),
			Fix:     fixRebuild + claudesettings.ShellQuote(id) + " (or spcstr doctor --fix)",
			Repair:  Repair{Kind: RepairRebuildState, Session: id}})
	}
	return out
}

// tornTail reports whether a JSON-array log does not end in "]".
func tornTail(path string) (bool, error) {
	f, fi, err := safefs.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if fi.Size() == 0 {
		return false, nil
	}
	buf := make([]byte, min(fi.Size(), 64))
	if _, err := f.ReadAt(buf, fi.Size()-int64(len(buf))); err != nil {
		return false, err
	}
	buf = bytes.TrimSpace(buf)
	return len(buf) == 0 || buf[len(buf)-1] != ']', nil
}

// tornLines counts the lines of a JSON Lines file that do not parse,
// a last line without its newline included.
func tornLines(path string) (int, error) {
	data, err := safefs.ReadFile(path, logs.MaxLinesBytes)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, line := range splitLines(data) {
		if !json.Valid(line) {
			n++
		}
	}
	return n, nil
}

func splitLines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, data)
			break
		}
		if line := bytes.TrimSpace(data[:i]); len(line) > 0 {
			out = append(out, line)
		}
		data = data[i+1:]
	}
	return out
}

// DropTornLines rewrites a JSON Lines file without its torn lines, which
// are kept beside it in <name>.torn (appended): the --fix of a torn
// observability log. It replaces the file atomically, under the lock the
// appenders take (logs.RewriteLines): no line appended meanwhile is lost.
func DropTornLines(path string) (dropped int, err error) {
	err = logs.RewriteLines(path, func(data []byte) ([]byte, error) {
		var keep, torn bytes.Buffer
		dropped = 0
		for _, line := range splitLines(data) {
			if json.Valid(line) {
				keep.Write(line)
				keep.WriteByte('\n')
			} else {
				torn.Write(line)
				torn.WriteByte('\n')
				dropped++
			}
		}
		if dropped == 0 {
			return nil, nil
		}
		root, err := os.OpenRoot(filepath.Dir(path))
		if err != nil {
			return nil, err
		}
		defer root.Close()
		f, err := root.OpenFile(filepath.Base(path)+logs.TornSuffix, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		_, werr := f.Write(torn.Bytes())
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return nil, werr
		}
		return keep.Bytes(), nil
	})
	if err != nil {
		return 0, err
	}
	return dropped, nil
}

// RecordsCheck is the check of the durable record alone, for spcstr
// doctor --fix to find what to mend.
func RecordsCheck() Check { return Check{Name: "records", Run: checkRecords} }
