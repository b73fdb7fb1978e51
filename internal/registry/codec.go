package registry

import (
	"encoding/json"
)

// The registry is shared with the Python requirements framework and
// whatever else writes ~/.claude/sessions.json. spcstr rewrites it, so it
// must keep every field it does not know, and a known field written with
// another type (a string timestamp, say) must not make the whole file
// unreadable: such a value is kept as it was, not interpreted.

type fileFields struct {
	Version  string           `json:"version"`
	Sessions map[string]Entry `json:"sessions"`
}

// UnmarshalJSON keeps unknown top-level keys.
func (f *File) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*f = File{}
	if v, ok := raw["version"]; ok {
		if json.Unmarshal(v, &f.Version) == nil {
			delete(raw, "version")
		}
	}
	if v, ok := raw["sessions"]; ok {
		// Entry by entry: one malformed entry must not lose the others.
		var sessions map[string]json.RawMessage
		if json.Unmarshal(v, &sessions) == nil {
			f.Sessions = make(map[string]Entry, len(sessions))
			for k, ev := range sessions {
				var e Entry
				if json.Unmarshal(ev, &e) != nil {
					f.dropped = append(f.dropped, k)
					continue
				}
				f.Sessions[k] = e
			}
			delete(raw, "sessions")
		}
	}
	if len(raw) > 0 {
		f.extra = raw
	}
	return nil
}

// MarshalJSON writes the known fields and every kept unknown one.
func (f File) MarshalJSON() ([]byte, error) {
	return merge(fileFields{Version: f.Version, Sessions: f.Sessions}, f.extra)
}

type entryFields struct {
	PID        int     `json:"pid"`
	PPID       int     `json:"ppid"`
	ProjectDir string  `json:"project_dir"`
	Branch     string  `json:"branch"`
	StartedAt  float64 `json:"started_at"`
	LastActive float64 `json:"last_active"`
	SessionID  string  `json:"session_id,omitempty"`
}

// UnmarshalJSON decodes each known field on its own, keeping a field of an
// unexpected type (and every unknown field) as raw JSON.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*e = Entry{}
	take := func(key string, dst any) {
		if v, ok := raw[key]; ok && json.Unmarshal(v, dst) == nil {
			delete(raw, key)
		}
	}
	take("pid", &e.PID)
	take("ppid", &e.PPID)
	take("project_dir", &e.ProjectDir)
	take("branch", &e.Branch)
	take("started_at", &e.StartedAt)
	take("last_active", &e.LastActive)
	take("session_id", &e.SessionID)
	if len(raw) > 0 {
		e.extra = raw
	}
	return nil
}

// MarshalJSON writes the known fields and every kept unknown one. A known
// field that arrived with another type is written back as it was unless
// spcstr set it.
func (e Entry) MarshalJSON() ([]byte, error) {
	known := entryFields{PID: e.PID, PPID: e.PPID, ProjectDir: e.ProjectDir, Branch: e.Branch,
		StartedAt: e.StartedAt, LastActive: e.LastActive, SessionID: e.SessionID}
	return merge(known, e.extra)
}

// merge encodes known and adds the extra keys. A kept value also replaces a
// known field that spcstr left at its zero value: that field arrived with
// another type and was not interpreted.
func merge(known any, extra map[string]json.RawMessage) ([]byte, error) {
	b, err := json.Marshal(known)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	for k, v := range extra {
		if cur, set := out[k]; !set || isZero(cur) {
			out[k] = v
		}
	}
	return json.Marshal(out)
}

func isZero(v json.RawMessage) bool {
	switch string(v) {
	case "0", `""`, "null", "false":
		return true
	}
	return false
}
