package requirements

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
)

// StateVersion is the schema version the Python framework writes.
const StateVersion = "1.0"

// File is one branch's state file, in the requirements framework's schema
// (docs/requirements.md). Times are Unix seconds. Fields this package does not know
// are kept as they were read and written back unchanged, so a file shared
// with the Python framework (or a newer spcstr) loses nothing.
type File struct {
	Version      string                  `json:"version"`
	Branch       string                  `json:"branch"`
	Project      string                  `json:"project"`
	CreatedAt    float64                 `json:"created_at"`
	UpdatedAt    float64                 `json:"updated_at"`
	Requirements map[string]*Requirement `json:"requirements"`

	obj object
}

// Requirement is one requirement's state. Branch and permanent requirements
// keep their satisfaction at this level (the embedded Entry); session and
// single_use requirements keep one Entry per session in Sessions, and a
// satisfaction at this level overrides every session ("satisfy --branch").
type Requirement struct {
	Scope    string            `json:"scope"`
	Sessions map[string]*Entry `json:"sessions"`
	Entry

	robj object
}

// Entry is the satisfaction record of one session (or, embedded in
// Requirement, of the whole branch).
type Entry struct {
	Satisfied   bool            `json:"satisfied"`
	SatisfiedAt float64         `json:"satisfied_at"`
	SatisfiedBy string          `json:"satisfied_by"`
	Metadata    json.RawMessage `json:"metadata"`
	ExpiresAt   *float64        `json:"expires_at"`
	Triggered   bool            `json:"triggered"`
	TriggeredAt float64         `json:"triggered_at"`

	obj object
}

// object remembers, for one JSON object, which known fields were present
// (so that an explicit null or false survives a round trip) and every
// unknown field verbatim.
type object struct {
	present map[string]bool
	extra   map[string]json.RawMessage
	dropped []string // entries of a map field that did not parse
}

type field struct {
	name string
	ptr  any // pointer to the typed value
}

func (e *Entry) fields() []field {
	return []field{
		{"satisfied", &e.Satisfied},
		{"satisfied_at", &e.SatisfiedAt},
		{"satisfied_by", &e.SatisfiedBy},
		{"metadata", &e.Metadata},
		{"expires_at", &e.ExpiresAt},
		{"triggered", &e.Triggered},
		{"triggered_at", &e.TriggeredAt},
	}
}

func (r *Requirement) fields() []field {
	return []field{{"scope", &r.Scope}, {"sessions", &r.Sessions}}
}

func (f *File) fields() []field {
	return []field{
		{"version", &f.Version},
		{"branch", &f.Branch},
		{"project", &f.Project},
		{"created_at", &f.CreatedAt},
		{"updated_at", &f.UpdatedAt},
		{"requirements", &f.Requirements},
	}
}

// decodeFields splits a JSON object: known fields go into their typed
// values, everything else (and a known field whose type does not fit, which
// is then left as it was) stays in o.extra.
func (o *object) decodeFields(data []byte, fields []field, what string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if m == nil {
		return fmt.Errorf("%s: %w", what, errNotObject)
	}
	o.present = map[string]bool{}
	for _, f := range fields {
		raw, ok := m[f.name]
		if !ok {
			continue
		}
		if ok, err := o.decodeMap(raw, f); ok {
			if err != nil {
				continue
			}
		} else if err := json.Unmarshal(raw, f.ptr); err != nil {
			reflect.ValueOf(f.ptr).Elem().SetZero()
			continue // keep the value as read, in extra
		}
		o.present[f.name] = true
		delete(m, f.name)
	}
	if len(m) > 0 {
		o.extra = m
	}
	return nil
}

// decodeMap decodes a map of requirements or session entries one value at
// a time, so that one malformed value does not lose the others: it is
// left out and named in o.dropped. ok is false for other fields.
func (o *object) decodeMap(raw json.RawMessage, f field) (ok bool, err error) {
	switch ptr := f.ptr.(type) {
	case *map[string]*Requirement:
		*ptr, err = decodeEach[Requirement](raw, f.name, &o.dropped)
		return true, err
	case *map[string]*Entry:
		*ptr, err = decodeEach[Entry](raw, f.name, &o.dropped)
		return true, err
	}
	return false, nil
}

func decodeEach[T any](raw json.RawMessage, name string, dropped *[]string) (map[string]*T, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, nil
	}
	out := make(map[string]*T, len(m))
	for k, v := range m {
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			out[k] = nil
			continue
		}
		t := new(T)
		if err := json.Unmarshal(v, t); err != nil {
			*dropped = append(*dropped, name+"."+k)
			continue
		}
		out[k] = t
	}
	return out, nil
}

// Damaged lists the entries (requirement names, "sessions.<key>") that did
// not parse and were left out when the file was read.
func (f *File) Damaged() []string {
	out := append([]string(nil), f.obj.dropped...)
	for name, r := range f.Requirements {
		if r == nil {
			continue
		}
		for _, d := range r.robj.dropped {
			out = append(out, name+"."+d)
		}
	}
	sort.Strings(out)
	return out
}

var errNotObject = errors.New("not a JSON object")

// encodeFields writes the known fields that were present when read or are
// set now, in schema order, then the unknown fields in name order.
func (o *object) encodeFields(buf *bytes.Buffer, fields []field) error {
	first := buf.Len() == 1
	sep := func() {
		if !first {
			buf.WriteByte(',')
		}
		first = false
	}
	written := map[string]bool{}
	for _, f := range fields {
		v := reflect.ValueOf(f.ptr).Elem()
		if !o.present[f.name] && v.IsZero() {
			continue
		}
		b, err := json.Marshal(f.ptr)
		if err != nil {
			return fmt.Errorf("encode %s: %w", f.name, err)
		}
		sep()
		writeKey(buf, f.name)
		buf.Write(b)
		written[f.name] = true
	}
	keys := make([]string, 0, len(o.extra))
	for k := range o.extra {
		if !written[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		sep()
		writeKey(buf, k)
		buf.Write(o.extra[k])
	}
	return nil
}

func writeKey(buf *bytes.Buffer, k string) {
	b, _ := json.Marshal(k)
	buf.Write(b)
	buf.WriteByte(':')
}

// forget drops a known field: it is no longer written unless set again.
func (o *object) forget(name string) {
	delete(o.present, name)
	delete(o.extra, name)
}

// UnmarshalJSON reads an entry, keeping unknown fields.
func (e *Entry) UnmarshalJSON(data []byte) error {
	*e = Entry{}
	return e.obj.decodeFields(data, e.fields(), "session entry")
}

// MarshalJSON writes an entry with its unknown fields.
func (e *Entry) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	if err := e.obj.encodeFields(&buf, e.fields()); err != nil {
		return nil, err
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads a requirement, keeping unknown fields.
func (r *Requirement) UnmarshalJSON(data []byte) error {
	*r = Requirement{}
	// The requirement's own fields first; what is left belongs to the
	// branch-level entry (and, if unknown there too, stays verbatim).
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("requirement: %w", err)
	}
	if m == nil {
		return fmt.Errorf("requirement: %w", errNotObject)
	}
	r.robj.present = map[string]bool{}
	for _, f := range r.fields() {
		raw, ok := m[f.name]
		if !ok {
			continue
		}
		if ok, err := r.robj.decodeMap(raw, f); ok {
			if err != nil {
				continue
			}
		} else if err := json.Unmarshal(raw, f.ptr); err != nil {
			reflect.ValueOf(f.ptr).Elem().SetZero()
			continue
		}
		r.robj.present[f.name] = true
		delete(m, f.name)
	}
	rest, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return r.Entry.UnmarshalJSON(rest)
}

// MarshalJSON writes a requirement with its unknown fields.
func (r *Requirement) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	if err := r.robj.encodeFields(&buf, r.fields()); err != nil {
		return nil, err
	}
	if err := r.Entry.obj.encodeFields(&buf, r.Entry.fields()); err != nil {
		return nil, err
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads a state file, keeping unknown fields.
func (f *File) UnmarshalJSON(data []byte) error {
	*f = File{}
	return f.obj.decodeFields(data, f.fields(), "state file")
}

// MarshalJSON writes a state file with its unknown fields.
func (f *File) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	if err := f.obj.encodeFields(&buf, f.fields()); err != nil {
		return nil, err
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
