// Package registry owns the session registry (~/.claude/sessions.json, seed
// 000 §4), shared with the Python requirements framework: which Claude Code
// sessions are running, keyed by their 8-character id, with the pid of the
// Claude Code process used to tell live sessions from stale ones.
// SPCSTR_REGISTRY overrides its path.
package registry

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
)

// File is the registry document.
type File struct {
	Version  string
	Sessions map[string]Entry

	extra map[string]json.RawMessage // keys spcstr does not know, kept
}

// Entry is one registered session. Times are Unix seconds, as the Python
// framework writes them.
type Entry struct {
	PID        int
	PPID       int
	ProjectDir string
	Branch     string
	StartedAt  float64
	LastActive float64
	// SessionID is the full id (spcstr's addition; the key is shortened).
	SessionID string

	extra map[string]json.RawMessage // fields spcstr does not know, kept
}

// Path returns the registry path: $SPCSTR_REGISTRY, else
// ~/.claude/sessions.json.
func Path(getenv func(string) string) string {
	if p := getenv("SPCSTR_REGISTRY"); p != "" {
		return p
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".claude", "sessions.json")
}

// ShortID normalizes a session id to the framework's 8-character key:
// "cad0ac4d-3933-45ad-9a1c-14aec05bb940" → "cad0ac4d".
func ShortID(id string) string {
	id = strings.ReplaceAll(id, "-", "")
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// Register adds or refreshes a session and drops entries whose Claude Code
// process is gone.
func Register(ctx context.Context, path, sessionID string, e Entry, alive func(pid int) bool) error {
	var f File
	return jsonfile.Update(ctx, path, &f, func(fresh bool, _ error) (bool, error) {
		if fresh {
			f = File{Version: "1.0"}
		}
		if f.Sessions == nil {
			f.Sessions = map[string]Entry{}
		}
		if f.Version == "" {
			f.Version = "1.0"
		}
		for k, old := range f.Sessions {
			if old.PPID > 0 && !alive(old.PPID) {
				delete(f.Sessions, k)
			}
		}
		key := ShortID(sessionID)
		if old, ok := f.Sessions[key]; ok {
			if old.StartedAt > 0 {
				e.StartedAt = old.StartedAt
			}
			e.extra = old.extra
		}
		e.SessionID = sessionID
		f.Sessions[key] = e
		return true, nil
	})
}

// RefreshInterval is how often a session's last_active is refreshed: at
// most once a minute, so that the hook does not rewrite a file shared by
// every session on every event.
const RefreshInterval = time.Minute

// Touch sets a registered session's last_active to now. A session that is
// not registered is left alone (SessionStart registers it), and so is one
// refreshed less than RefreshInterval ago.
func Touch(ctx context.Context, path, sessionID string, now float64) error {
	var f File
	return jsonfile.Update(ctx, path, &f, func(fresh bool, _ error) (bool, error) {
		key := ShortID(sessionID)
		e, ok := f.Sessions[key]
		if fresh || !ok || now-e.LastActive < RefreshInterval.Seconds() {
			return false, nil
		}
		e.LastActive = now
		f.Sessions[key] = e
		return true, nil
	})
}

// Remove deletes a session's entry.
func Remove(ctx context.Context, path, sessionID string) error {
	var f File
	return jsonfile.Update(ctx, path, &f, func(fresh bool, _ error) (bool, error) {
		key := ShortID(sessionID)
		if _, ok := f.Sessions[key]; !ok {
			return false, nil
		}
		delete(f.Sessions, key)
		return true, nil
	})
}

// Load reads the registry without locking (it is replaced atomically). A
// missing or unreadable registry is empty: the registry is advisory.
func Load(path string) File {
	var f File
	data, err := os.ReadFile(path)
	if err != nil || jsonfile.Decode(data, &f) != nil || f.Sessions == nil {
		return File{Version: "1.0", Sessions: map[string]Entry{}}
	}
	return f
}

// Lookup returns the entry for a full or short session id.
func (f File) Lookup(sessionID string) (Entry, bool) {
	e, ok := f.Sessions[ShortID(sessionID)]
	return e, ok
}

// Now returns t as Unix seconds with sub-second precision.
func Now(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}
