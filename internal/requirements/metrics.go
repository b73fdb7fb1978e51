package requirements

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
)

// The session metrics file is the framework's learning record of one
// session: <git common dir>/requirements/sessions/<session key>.json,
// created at SessionStart and updated when a requirement blocks or is
// satisfied, when a skill runs, when the learning prompt is shown and when
// the session ends. The /session-reflect command reads these files. Fields
// spcstr does not write are kept as they are.

// MetricsVersion is the schema version of the metrics file.
const MetricsVersion = "1.0"

// ReflectMinTools is how many tool calls a session needs before Stop
// suggests /session-reflect.
const ReflectMinTools = 5

// MetricsPath is the metrics file of session key.
func (l Location) MetricsPath(key string) string {
	return filepath.Join(l.Dir, "sessions", key+".json")
}

// Metrics is one session's metrics document, as loose JSON so that what
// other writers add survives.
type Metrics map[string]any

func emptyMetrics(key, root, branch string, now int64) Metrics {
	return Metrics{
		"version": MetricsVersion, "session_id": key, "project_dir": root, "branch": branch,
		"started_at": now, "ended_at": nil, "duration_seconds": nil, "compaction_count": 0,
		"tools": map[string]any{}, "requirements": map[string]any{}, "errors": []any{},
		"git":    map[string]any{"commits": []any{}, "files_changed": 0, "lines_added": 0, "lines_removed": 0},
		"skills": []any{}, "commands": []any{},
		"learnings": map[string]any{"patterns_detected": []any{}, "improvements_made": []any{}, "user_feedback": nil},
	}
}

// UpdateMetrics runs a locked read-modify-write of session key's metrics,
// creating the file when it is missing (or set aside as corrupt). fn
// reports whether it changed anything; a file just created is written
// either way. A file of another schema version ("1.1") is updated as it
// is, every field kept: only what spcstr records changes. One that is not
// a JSON object (it does not parse, or is null) is set aside under a new
// name, never overwritten, and a fresh one is started.
func (l Location) UpdateMetrics(ctx context.Context, key string, now time.Time, fn func(m Metrics) bool) error {
	var m Metrics
	if err := l.checkDir(); err != nil {
		return err
	}
	path := l.MetricsPath(key)
	err := jsonfile.Update(ctx, path, &m, func(fresh bool, _ error) (bool, error) {
		if !fresh && m == nil {
			// "null": nothing to keep, but not spcstr's to overwrite.
			if _, err := setAsideCopy(path, now); err != nil {
				return false, fmt.Errorf("set aside %s: %w", path, err)
			}
			fresh = true
		}
		if fresh {
			m = emptyMetrics(key, l.Root, l.Branch, now.Unix())
			fn(m)
			return true, nil
		}
		return fn(m), nil
	})
	if err != nil {
		return fmt.Errorf("session metrics: %w", err)
	}
	return nil
}

// obj returns m[k] as an object, creating it when it is missing or null.
// A value of another type, written by another writer, is kept: what would
// have gone into it is dropped instead.
func (m Metrics) obj(k string) map[string]any {
	o, ok := m[k].(map[string]any)
	if !ok {
		o = map[string]any{}
		if m[k] == nil {
			m[k] = o
		}
	}
	return o
}

// list appends v to the list m[k], keeping the last keep items. A value of
// another type is kept, as in obj.
func (m Metrics) list(k string, v any, keep int) {
	l, ok := m[k].([]any)
	if !ok && m[k] != nil {
		return
	}
	l = append(l, v)
	if len(l) > keep {
		l = slices.Clone(l[len(l)-keep:])
	}
	m[k] = l
}

func (m Metrics) requirement(name string) map[string]any {
	reqs := m.obj("requirements")
	r, ok := reqs[name].(map[string]any)
	if !ok {
		r = map[string]any{"triggered_at": nil, "blocked_count": 0, "satisfied_at": nil, "satisfied_by": nil, "time_to_satisfy_seconds": nil}
		if reqs[name] == nil {
			reqs[name] = r
		}
	}
	return r
}

func num(v any) int64 {
	switch n := v.(type) {
	case float64:
		return int64(n)
	case int64:
		return n
	case int:
		return int64(n)
	}
	return 0
}

// RecordBlocked notes that requirement name blocked a tool call.
func (m Metrics) RecordBlocked(name string, now int64) {
	r := m.requirement(name)
	if r["triggered_at"] == nil {
		r["triggered_at"] = now
	}
	r["blocked_count"] = num(r["blocked_count"]) + 1
}

// RecordSatisfied notes that requirement name was satisfied, and how.
func (m Metrics) RecordSatisfied(name, by string, now int64) {
	r := m.requirement(name)
	r["satisfied_at"], r["satisfied_by"] = now, by
	if t := num(r["triggered_at"]); t > 0 {
		r["time_to_satisfy_seconds"] = now - t
	}
}

// RecordSkill notes a skill that ran (the Skill tool or a slash command).
func (m Metrics) RecordSkill(skill string, now int64) {
	m.list("skills", map[string]any{"name": skill, "timestamp": now}, 50)
}

// RecordTools sets the per-tool counts (the session's own counts, which
// spcstr already keeps) and the compaction count.
func (m Metrics) RecordTools(counts map[string]int, compactions int) {
	tools := m.obj("tools")
	for name, n := range counts {
		t, ok := tools[name].(map[string]any)
		if !ok {
			t = map[string]any{"count": 0, "blocked_count": 0, "files": []any{}, "commands": []any{}}
			if tools[name] == nil {
				tools[name] = t
			}
		}
		t["count"] = n
	}
	m["compaction_count"] = compactions
}

// Finalize sets the end time and duration.
func (m Metrics) Finalize(now int64) {
	m["ended_at"] = now
	if s := num(m["started_at"]); s > 0 {
		m["duration_seconds"] = now - s
	}
}
