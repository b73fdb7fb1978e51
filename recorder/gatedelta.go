package recorder

import (
	"maps"

	"github.com/dylan-gluck/spcstr/state"
)

// gateDelta is what the gates changed in the session's state while they
// decided on a snapshot of it, outside the session's lock: the errors they
// added, the notes they took, their Stop counts, and an agent call a deny
// cancelled. The recorder applies it to the current state under the lock.
type gateDelta struct {
	errors    []state.Error
	notes     []string
	gates     map[string]state.GateState
	gone      []string // gate keys the gates cleared
	dropAgent string   // tool_use_id of a denied agent call
	// base is the state before the gates ran (captureDelta).
	baseErrors int
	baseNotes  map[string]bool
	baseGates  map[string]state.GateState
}

// captureDelta notes what s holds before the gates run.
func captureDelta(s *state.Session) *gateDelta {
	return &gateDelta{baseErrors: len(s.Errors), baseNotes: maps.Clone(s.Notes), baseGates: maps.Clone(s.Gates)}
}

// since returns what the gates changed in s since captureDelta.
func (d *gateDelta) since(s *state.Session) *gateDelta {
	out := &gateDelta{}
	if len(s.Errors) > d.baseErrors {
		out.errors = append(out.errors, s.Errors[d.baseErrors:]...)
	}
	for k, v := range s.Notes {
		if v && !d.baseNotes[k] {
			out.notes = append(out.notes, k)
		}
	}
	for k, v := range s.Gates {
		if old, ok := d.baseGates[k]; !ok || old != v {
			if out.gates == nil {
				out.gates = map[string]state.GateState{}
			}
			out.gates[k] = v
		}
	}
	for k := range d.baseGates {
		if _, ok := s.Gates[k]; !ok {
			out.gone = append(out.gone, k)
		}
	}
	return out
}

// touches reports whether the delta changes anything.
func (d *gateDelta) touches() bool {
	return d != nil && (len(d.errors) > 0 || len(d.notes) > 0 || len(d.gates) > 0 || len(d.gone) > 0 || d.dropAgent != "")
}

// sections are the state's sections the delta reads as well as changes
// (they are decoded under the lock).
func (d *gateDelta) sections() state.Section {
	if d.dropAgent != "" {
		return state.SectionAgents
	}
	return 0
}

// applyTo applies the delta to the current state s, under the lock.
func (d *gateDelta) applyTo(s *state.Session) {
	if !d.touches() {
		return
	}
	s.Errors = append(s.Errors, d.errors...)
	for _, k := range d.notes {
		s.Note(k)
	}
	if len(d.gates) > 0 && s.Gates == nil {
		s.Gates = map[string]state.GateState{}
	}
	for k, v := range d.gates {
		s.Gates[k] = v
	}
	for _, k := range d.gone {
		delete(s.Gates, k)
	}
	if d.dropAgent != "" {
		dropAgentCall(s, d.dropAgent)
	}
}
