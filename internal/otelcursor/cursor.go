// Package otelcursor owns .spcstr/otel-cursor.json: how far `spcstr otel`
// has shipped each log file, the spans it has opened but not yet closed,
// and the running counts behind its metrics. It imports no OpenTelemetry
// package, so that spcstr doctor (linked into the hook's binary) can read
// it at no cost.
package otelcursor

import (
	"errors"
	"fmt"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// FileName is the cursor's name under .spcstr/.
const FileName = "otel-cursor.json"

// Version is the cursor format written by this build.
const Version = 1

// maxSize bounds the cursor read back: it is untrusted input like
// everything under .spcstr/.
const maxSize = 64 << 20

// Cursor is the whole file. Only the shipper writes it, and only after the
// receiver has accepted everything it describes.
type Cursor struct {
	Version   int       `json:"version"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
	// Endpoint is where the last successful export went.
	Endpoint string `json:"endpoint,omitempty"`
	// Files maps a log file's name (relative to .spcstr/logs) to how far it
	// has been shipped.
	Files map[string]*File `json:"files"`
	// Open holds the spans whose start has been read but not their end,
	// by span id (hex).
	Open map[string]*Span `json:"open,omitempty"`
	// Sessions holds what the shipper carries from run to run about each
	// session, by session id.
	Sessions map[string]*Session `json:"sessions,omitempty"`
}

// File is one log file's progress.
type File struct {
	// ID identifies the file across renames (its inode where there is
	// one), so that a rotated log keeps its offset under its new name.
	ID uint64 `json:"id,omitempty"`
	// Offset is the byte just after the last entry shipped.
	Offset int64 `json:"offset"`
}

// Span is an open span: everything needed to finish it in a later run.
type Span struct {
	TraceID  string    `json:"trace_id"`
	SpanID   string    `json:"span_id"`
	ParentID string    `json:"parent_id,omitempty"`
	Name     string    `json:"name"`
	Session  string    `json:"session_id"`
	Start    time.Time `json:"start"`
	Attrs    []Attr    `json:"attrs,omitempty"`
	Events   []Event   `json:"events,omitempty"`
}

// Attr is a span attribute: a string, an integer or a boolean.
type Attr struct {
	Key  string `json:"k"`
	Str  string `json:"s,omitempty"`
	Int  int64  `json:"i,omitempty"`
	Bool bool   `json:"b,omitempty"`
	// Kind is "s", "i" or "b".
	Kind string `json:"t"`
}

// Event is a span event (a gate decision on the call it judged).
type Event struct {
	Name  string    `json:"name"`
	Time  time.Time `json:"time"`
	Attrs []Attr    `json:"attrs,omitempty"`
}

// Session is what the shipper remembers about one session: when it started,
// its model, the prompt turn open now, and the cumulative counts behind its
// metrics (keys join the metric's attribute values with "\x1f").
type Session struct {
	Start     time.Time        `json:"start,omitzero"`
	Model     string           `json:"model,omitempty"`
	Turn      string           `json:"turn,omitempty"`
	Ended     bool             `json:"ended,omitempty"`
	ToolCalls map[string]int64 `json:"tool_calls,omitempty"`
	Decisions map[string]int64 `json:"decisions,omitempty"`
}

// New returns an empty cursor.
func New() *Cursor {
	return &Cursor{Version: Version, Files: map[string]*File{}, Open: map[string]*Span{}, Sessions: map[string]*Session{}}
}

// Path is the cursor's path in a project.
func Path(l state.Layout) string { return filepath.Join(l.Dir(), FileName) }

// ErrCorrupt reports a cursor that could not be read; it has been set
// aside and shipping starts over (deterministic ids make that harmless).
var ErrCorrupt = errors.New("otel cursor corrupt")

// Load reads the project's cursor. A missing one is empty. A damaged one
// (not a regular file, too large, not JSON, an unknown version) is set
// aside and an empty cursor is returned with an error wrapping ErrCorrupt.
func Load(l state.Layout) (*Cursor, error) {
	c, why, err := Peek(l)
	if err != nil || why == nil {
		return c, err
	}
	path := Path(l)
	aside := jsonfile.SetAsideName(path, time.Now())
	if err := os.Rename(path, aside); err != nil {
		return New(), fmt.Errorf("%w: %s: %v (and could not set it aside: %v)", ErrCorrupt, path, why, err)
	}
	return New(), fmt.Errorf("%w: %s set aside as %s: %v", ErrCorrupt, path, filepath.Base(aside), why)
}

// Peek reads the cursor without changing anything: a missing one is nil;
// a damaged one gives its problem as corrupt (and an empty cursor).
func Peek(l state.Layout) (c *Cursor, corrupt error, err error) {
	path := Path(l)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return New(), nil, nil
	}
	if err != nil {
		return New(), nil, fmt.Errorf("otel cursor: %w", err)
	}
	c = New()
	switch {
	case !fi.Mode().IsRegular():
		return New(), errors.New("not a regular file"), nil
	case fi.Size() > maxSize:
		return New(), fmt.Errorf("larger than %d bytes", maxSize), nil
	}
	data, err := safefs.ReadFile(path, maxSize)
	switch {
	case errors.Is(err, safefs.ErrNotRegular), errors.Is(err, safefs.ErrTooLarge):
		return New(), err, nil // swapped since the Lstat
	case err != nil:
		return New(), nil, fmt.Errorf("otel cursor: %w", err)
	}
	if err := jsonfile.Decode(data, c); err != nil {
		return New(), err, nil
	}
	if c.Version != Version {
		return New(), fmt.Errorf("unknown version %d", c.Version), nil
	}
	c.fill()
	return c, nil, nil
}

func (c *Cursor) fill() {
	if c.Files == nil {
		c.Files = map[string]*File{}
	}
	if c.Open == nil {
		c.Open = map[string]*Span{}
	}
	if c.Sessions == nil {
		c.Sessions = map[string]*Session{}
	}
	for k, s := range c.Sessions {
		if s == nil {
			delete(c.Sessions, k)
		}
	}
	for k, s := range c.Open {
		if s == nil {
			delete(c.Open, k)
		}
	}
	for k, f := range c.Files {
		if f == nil || f.Offset < 0 || strings.ContainsAny(k, `/\`) {
			delete(c.Files, k)
		}
	}
}

// Save writes the cursor atomically.
func (c *Cursor) Save(l state.Layout, now time.Time) error {
	c.Version, c.UpdatedAt = Version, now.UTC()
	if err := jsonfile.WriteJSON(Path(l), c); err != nil {
		return fmt.Errorf("save otel cursor: %w", err)
	}
	return nil
}

// Offset returns where to resume reading the log file name whose identity
// is id: the entry recorded for the same file (by id, which survives a
// rotation's rename), else for the same name when ids are unknown.
func (c *Cursor) Offset(name string, id uint64) int64 {
	if id != 0 {
		for _, f := range c.Files {
			if f.ID == id {
				return f.Offset
			}
		}
		if f := c.Files[name]; f != nil && f.ID == 0 {
			return f.Offset
		}
		return 0
	}
	if f := c.Files[name]; f != nil {
		return f.Offset
	}
	return 0
}

// Behind measures what is left to ship: the bytes of the project's logs
// past the cursor, and the number of log files with something new.
func Behind(l state.Layout, c *Cursor) (bytes int64, files int, err error) {
	entries, err := os.ReadDir(l.LogsDir())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, 0, nil
		}
		return 0, 0, err
	}
	for _, e := range entries {
		if !Shipped(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		off := c.Offset(e.Name(), FileID(fi))
		if fi.Size() < off {
			off = 0
		}
		// A log ends in "\n]" (and maybe a newline) after its last entry:
		// bytes that are never shipped.
		if n := fi.Size() - off; n > 8 {
			bytes += n
			files++
		}
	}
	return bytes, files, nil
}

// Shipped reports whether a file in .spcstr/logs holds entries spcstr otel
// ships or joins to what it ships: the session logs (event logs and
// decisions) and answers.json, rotated segments too; not the logs of
// rejected payloads or repairs, nor anything that is not a log.
func Shipped(name string) bool {
	k := logs.Classify(name).Kind
	return k.Session() || k == logs.Answers
}
