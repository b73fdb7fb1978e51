// Package registry owns the session registry (~/.claude/sessions.json),
// shared with the Python requirements framework: which Claude Code
// sessions are running, keyed by their 8-character id, with the pid of the
// Claude Code process used to tell live sessions from stale ones. Both
// programs lock it the framework's way (see update.go), so neither loses
// the other's sessions; one malformed entry never costs the others.
// SPCSTR_REGISTRY overrides its path.
package registry

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// File is the registry document.
type File struct {
	Version  string
	Sessions map[string]Entry

	extra   map[string]json.RawMessage // keys spcstr does not know, kept
	dropped []string                   // session keys whose entry did not parse
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

// MaxEntries bounds the registry: beyond it, the sessions least recently
// active are dropped (a registry that grew to megabytes made every
// SessionStart slow).
const MaxEntries = 500

// Register adds or refreshes a session and drops entries whose Claude Code
// process is gone, keeping at most MaxEntries.
func Register(ctx context.Context, path, sessionID string, e Entry, alive func(pid int) bool) error {
	return update(ctx, path, func(f *File) bool {
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
		bound(f, key)
		return true
	})
}

// bound drops the least recently active entries beyond MaxEntries (never
// keep).
func bound(f *File, keep string) {
	if len(f.Sessions) <= MaxEntries {
		return
	}
	keys := make([]string, 0, len(f.Sessions))
	for k := range f.Sessions {
		if k != keep {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := f.Sessions[keys[i]], f.Sessions[keys[j]]
		if a.LastActive != b.LastActive {
			return a.LastActive > b.LastActive
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys[MaxEntries-1:] {
		delete(f.Sessions, k)
	}
}

// Touch sets a session's last_active to now, and registers it again (as e)
// when its entry is missing: the framework's own write protocol leaves a
// gap between its read and its rename in which a concurrent update can be
// undone, so a session that spcstr registered heals on its next touch. A
// touch never moves last_active backwards. The hook calls it on a
// session's second event and then at most once a minute (on the session's
// first event of a minute), so that a file shared by every session is not
// rewritten on every event.
func Touch(ctx context.Context, path, sessionID string, now float64, e Entry) error {
	return update(ctx, path, func(f *File) bool {
		key := ShortID(sessionID)
		old, ok := f.Sessions[key]
		if !ok {
			e.SessionID = sessionID
			e.LastActive = max(e.LastActive, now)
			f.Sessions[key] = e
			bound(f, key)
			return true
		}
		if now <= old.LastActive {
			return false
		}
		old.LastActive = now
		f.Sessions[key] = old
		return true
	})
}

// Remove deletes a session's entry.
func Remove(ctx context.Context, path, sessionID string) error {
	return update(ctx, path, func(f *File) bool {
		key := ShortID(sessionID)
		if _, ok := f.Sessions[key]; !ok {
			return false
		}
		delete(f.Sessions, key)
		return true
	})
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
