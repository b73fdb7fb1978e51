package requirements

import (
	"encoding/json"
	"strings"
)

// Scopes (docs/requirements.md).
const (
	ScopeSession   = "session"    // once per session: every new session must satisfy it again
	ScopeBranch    = "branch"     // once per branch: satisfied for every session on it
	ScopeSingleUse = "single_use" // once per action: cleared after the guarded command completes
	ScopePermanent = "permanent"  // once: never reset unless cleared by hand
)

// Scopes lists the valid scopes.
var Scopes = []string{ScopeSession, ScopeBranch, ScopeSingleUse, ScopePermanent}

// ValidScope reports whether s is one of Scopes.
func ValidScope(s string) bool {
	for _, v := range Scopes {
		if s == v {
			return true
		}
	}
	return false
}

// perSession reports whether a scope keeps one entry per session.
func perSession(scope string) bool {
	return scope == ScopeSession || scope == ScopeSingleUse
}

// How a requirement was satisfied (the satisfied_by field).
const (
	ByCLI       = "cli"       // spcstr req satisfy
	ByDashboard = "dashboard" // the dashboard's Reqs pane
	BySkill     = "skill"     // a mapped Skill call completed
)

// Requirement returns the named requirement's state, creating it.
func (f *File) Requirement(name string) *Requirement {
	if f.Requirements == nil {
		f.Requirements = map[string]*Requirement{}
	}
	r := f.Requirements[name]
	if r == nil {
		r = &Requirement{}
		f.Requirements[name] = r
	}
	return r
}

// lookup returns the named requirement's state or nil, without creating it.
func (f *File) lookup(name string) *Requirement {
	if f == nil {
		return nil
	}
	return f.Requirements[name]
}

// session returns the entry of session key, creating it.
func (r *Requirement) session(key string) *Entry {
	if r.Sessions == nil {
		r.Sessions = map[string]*Entry{}
	}
	e := r.Sessions[key]
	if e == nil {
		e = &Entry{}
		r.Sessions[key] = e
	}
	return e
}

// active reports whether an entry is satisfied and not expired at now (Unix
// seconds). Expiry applies unless the scope is permanent.
func (e *Entry) active(now float64, expires bool) bool {
	if e == nil || !e.Satisfied {
		return false
	}
	if expires && e.ExpiresAt != nil && now > *e.ExpiresAt {
		return false
	}
	return true
}

// IsSatisfied reports whether requirement name (of the given scope) is
// satisfied for session key at now (docs/requirements.md): session and single_use
// look at the session's own entry unless the branch-level override is set;
// branch and permanent look at the branch level only.
func (f *File) IsSatisfied(name, scope, key string, now float64) bool {
	r := f.lookup(name)
	if r == nil {
		return false
	}
	switch scope {
	case ScopeSession, ScopeSingleUse:
		if r.Entry.active(now, true) {
			return true // branch-level override ("satisfy --branch")
		}
		return r.Sessions[key].active(now, true)
	case ScopeBranch:
		return r.Entry.active(now, true)
	case ScopePermanent:
		return r.Entry.active(now, false)
	}
	return false
}

// IsOverridden reports whether a session or single_use requirement is
// satisfied at the branch level.
func (f *File) IsOverridden(name, scope string, now float64) bool {
	r := f.lookup(name)
	return r != nil && perSession(scope) && r.Entry.active(now, true)
}

// IsTriggered reports whether the requirement was triggered: in session key
// for session and single_use scope, on the branch for the others
// (docs/requirements.md).
func (f *File) IsTriggered(name, scope, key string) bool {
	r := f.lookup(name)
	if r == nil {
		return false
	}
	if perSession(scope) {
		e := r.Sessions[key]
		return e != nil && e.Triggered
	}
	return r.Entry.Triggered
}

// MarkTriggered records that a triggering call was allowed. It reports
// whether anything changed (a requirement already triggered is left alone).
func (f *File) MarkTriggered(name, scope, key string, now float64) bool {
	r := f.Requirement(name)
	e := &r.Entry
	if perSession(scope) {
		e = r.session(key)
	}
	changed := r.Scope != scope
	r.Scope = scope
	if e.Triggered {
		return changed
	}
	e.Triggered, e.TriggeredAt = true, now
	return true
}

// Satisfy marks requirement name satisfied (docs/requirements.md): for session and
// single_use scope in session key's entry, unless branchLevel asks for the
// branch-level override; for branch and permanent scope at the branch level.
// The entry's triggered fields are kept. metadata may be nil.
func (f *File) Satisfy(name, scope, key string, branchLevel bool, by string, metadata map[string]any, now float64) {
	r := f.Requirement(name)
	r.Scope = scope
	e := &r.Entry
	if perSession(scope) && !branchLevel {
		e = r.session(key)
	}
	e.Satisfied, e.SatisfiedAt, e.SatisfiedBy = true, now, by
	e.Metadata = nil
	e.obj.forget("metadata")
	if len(metadata) > 0 {
		if b, err := json.Marshal(metadata); err == nil {
			e.Metadata = b
		}
	}
	// The framework always writes expires_at (null: no TTL).
	e.ExpiresAt = nil
	if e.obj.present == nil {
		e.obj.present = map[string]bool{}
	}
	e.obj.present["expires_at"] = true
}

// unsatisfy drops an entry's satisfaction and keeps its triggered fields.
// It reports whether anything changed.
func (e *Entry) unsatisfy() bool {
	if e == nil || (!e.Satisfied && e.SatisfiedAt == 0 && e.SatisfiedBy == "") {
		return false
	}
	e.Satisfied, e.SatisfiedAt, e.SatisfiedBy, e.Metadata, e.ExpiresAt = false, 0, "", nil, nil
	for _, k := range []string{"satisfied_at", "satisfied_by", "metadata", "expires_at"} {
		e.obj.forget(k)
	}
	return true
}

// Clear makes requirement name unsatisfied for session key ("unless
// manually cleared"): for session and single_use scope it drops the
// session's satisfaction (and, with branchLevel, the branch-level override
// too); for branch and permanent scope it drops the branch-level
// satisfaction. Triggered flags stay, so a Stop in a session that used the
// requirement still asks for it. It reports whether anything changed.
func (f *File) Clear(name, scope, key string, branchLevel bool) bool {
	r := f.lookup(name)
	if r == nil {
		return false
	}
	if !perSession(scope) || branchLevel {
		changed := r.Entry.unsatisfy()
		if perSession(scope) {
			changed = r.Sessions[key].unsatisfy() || changed
		}
		return changed
	}
	return r.Sessions[key].unsatisfy()
}

// ClearSingleUse deletes session key's entry of a single_use requirement
// once the action it guards has completed (docs/requirements.md): the next trigger
// must be satisfied again. It reports whether anything changed.
func (f *File) ClearSingleUse(name, key string) bool {
	r := f.lookup(name)
	if r == nil || r.Sessions == nil {
		return false
	}
	if _, ok := r.Sessions[key]; !ok {
		return false
	}
	delete(r.Sessions, key)
	return true
}

// Remove deletes requirement name's whole state, every session's and the
// branch-level satisfaction alike, as the framework's clear() does for
// hooks.session_end.clear_session_state. It reports whether anything
// changed.
func (f *File) Remove(name string) bool {
	if f.lookup(name) == nil {
		return false
	}
	delete(f.Requirements, name)
	return true
}

// MigrateKeys rewrites session keys written before the framework shortened
// them ("cad0ac4d-3933-45ad-9a1c-14aec05bb940" → "cad0ac4d").
// When both forms exist, the entry with the newer timestamp wins. It is
// idempotent and reports whether anything changed.
func (f *File) MigrateKeys() bool {
	changed := false
	for _, r := range f.Requirements {
		if r == nil {
			continue
		}
		for k, e := range r.Sessions {
			short, ok := legacyKey(k)
			if !ok {
				continue
			}
			delete(r.Sessions, k)
			changed = true
			if cur, exists := r.Sessions[short]; exists && cur != nil && cur.newest() >= e.newest() {
				continue
			}
			r.Sessions[short] = e
		}
	}
	return changed
}

// legacyKey reports whether k is a full session id (a UUID, with or without
// dashes: hex digits longer than 8) and returns its 8-character form.
func legacyKey(k string) (string, bool) {
	h := strings.ReplaceAll(k, "-", "")
	if len(h) <= 8 {
		return "", false
	}
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return "", false
		}
	}
	return h[:8], true
}

// newest is the latest timestamp an entry carries (older framework versions
// wrote a plain "timestamp").
func (e *Entry) newest() float64 {
	if e == nil {
		return 0
	}
	t := max(e.SatisfiedAt, e.TriggeredAt)
	if raw, ok := e.obj.extra["timestamp"]; ok {
		var ts float64
		if json.Unmarshal(raw, &ts) == nil {
			t = max(t, ts)
		}
	}
	return t
}
