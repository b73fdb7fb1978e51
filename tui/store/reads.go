package store

import (
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// What a Store asks to read, and the functions that read it (inside a
// tea.Cmd).

// SessionsRead asks for some sessions' state.
type SessionsRead struct {
	List []Listing
	// Keep names the session whose whole state is returned ("*": every
	// one).
	Keep string
	// Next holds the sessions still to read at startup, carried to the
	// result so that startup reading goes on chunk by chunk.
	Next []Listing
	// Startup marks the chunked first reading; Queued marks a reread
	// issued by QueueSessions (only one runs at a time).
	Startup, Queued bool
}

// Sessions is the result of a SessionsRead.
type Sessions struct {
	Sums []Summary
	// States holds the whole state of the sessions asked for (nil when
	// unreadable).
	States          map[string]*state.Session
	Next            []Listing
	Startup, Queued bool
}

// ReadSessions reads the states a SessionsRead asks for.
func ReadSessions(l state.Layout, r SessionsRead) Sessions {
	out := Sessions{Next: r.Next, Startup: r.Startup, Queued: r.Queued, States: map[string]*state.Session{}}
	for _, li := range r.List {
		sum, s := LoadSession(l, li.ID, li.ModTime)
		out.Sums = append(out.Sums, sum)
		if r.Keep == "*" || li.ID == r.Keep {
			out.States[li.ID] = s
		}
	}
	return out
}

// TailRead asks for the bytes appended to some logs since their offsets.
type TailRead struct {
	Paths   []string
	Offsets Offsets
}

// Tail is new log entries and the offsets to go on from.
type Tail struct {
	Events  []Event
	Offsets Offsets
	// Initial marks the startup read of every log's tail window.
	Initial bool
	// Gates counts each session's decisions further back than the tail
	// window (CountGates), with the startup read.
	Gates map[string]GateTally
}

// ReadTailStart reads the end of every log of the project, and counts the
// sessions' gate decisions in the decisions log (read first: a decision
// appended meanwhile is in the tail, not counted twice).
func ReadTailStart(l state.Layout) Tail {
	gates := CountGates(l.LogPath(logs.Name(logs.Decisions, "")), gateCountBytes)
	evs, offs := TailStart(l.LogsDir())
	return Tail{Events: evs, Offsets: offs, Initial: true, Gates: gates}
}

// ReadTail reads what a TailRead asks for.
func ReadTail(r TailRead) Tail {
	evs, next := TailNew(r.Paths, r.Offsets)
	return Tail{Events: evs, Offsets: next}
}

// SessionHistory is one session's older events, found searching the logs
// backwards.
type SessionHistory struct {
	ID     string
	Events []Event
}

// ReadHistory searches the logs backwards for a session's events.
func ReadHistory(l state.Layout, id string) SessionHistory {
	return SessionHistory{ID: id, Events: History(l.LogsDir(), id, ringSize, historyBytes)}
}

// Reads is what a Store asks to be read next, in this order: the session
// list, session states, log tails, one session's history.
type Reads struct {
	Listing  bool
	Sessions []SessionsRead
	Tail     *TailRead
	// History names a session whose older events to search for.
	History string
}

// Empty reports whether nothing is to be read.
func (r Reads) Empty() bool {
	return !r.Listing && len(r.Sessions) == 0 && r.Tail == nil && r.History == ""
}

func (r *Reads) add(o Reads) {
	r.Listing = r.Listing || o.Listing
	r.Sessions = append(r.Sessions, o.Sessions...)
	if o.Tail != nil {
		r.Tail = o.Tail
	}
	if o.History != "" {
		r.History = o.History
	}
}
