// Package store is the dashboard's data, with no Bubble Tea dependency.
//
// Its reading functions (ListSessions, ReadSessions, ReadTailStart,
// ReadTail, ReadHistory) do I/O and are meant to run inside the dashboard's
// tea.Cmds, never in Update or View; each reads only what it is asked for:
// one session's state, a log's new bytes, a bounded tail window.
//
// A Store keeps what was read: the session summaries, the most recent full
// states, the registry, the log tails per session and across sessions with
// their read offsets, and the rereads queued behind a running one, so that
// results never go backwards. Its methods say, as Reads, what to read next.
//
// Untrusted text (state.json, the logs) is made safe to print once, here,
// as it is read: the panes draw it as it is.
package store

import (
	"maps"
	"path/filepath"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/state"
)

// How much is read and kept.
const (
	// firstChunk is how many sessions are read before the first full
	// frame; the rest follow in chunks of chunk.
	firstChunk = 60
	chunk      = 200
	// ringSize is how many events are kept per session.
	ringSize = 200
	// allSize is how many events are kept across sessions.
	allSize = 500
	// historyBytes bounds the backwards search of each log for a selected
	// session's older events; historyWant is how many events in the tail
	// make the search unnecessary.
	historyBytes = 1 << 20
	historyWant  = 50
	// stateCacheSize is how many full states are kept, so that moving
	// between live sessions shows them at once.
	stateCacheSize = 16
)

// Store keeps what the dashboard has read. Its zero value is not usable:
// call New.
type Store struct {
	layout state.Layout
	// prefix is the project root with a trailing separator, cut from the
	// events' paths.
	prefix string

	sums   map[string]Summary
	states *stateCache
	reg    registry.File
	regOK  bool
	alive  map[int]bool

	offsets    Offsets
	tailBusy   bool
	tailAgain  map[string]bool
	tailed     bool // the startup tail has been read
	ring       map[string][]Event
	gates      map[string]GateTally
	all        []Event
	backfilled map[string]bool

	loadBusy    bool
	loadAgain   map[string]bool
	rescanAgain bool
	loading     int // sessions still to read at startup
	ready       bool
}

// New returns an empty store for the project l.
func New(l state.Layout) *Store {
	return &Store{
		layout: l, prefix: filepath.Clean(l.Root) + string(filepath.Separator),
		sums: map[string]Summary{}, states: newStateCache(stateCacheSize), alive: map[int]bool{},
		offsets: Offsets{}, tailAgain: map[string]bool{}, ring: map[string][]Event{}, gates: map[string]GateTally{},
		backfilled: map[string]bool{}, loadAgain: map[string]bool{},
	}
}

// Ready reports whether the first full frame can be drawn: the session list
// and the newest sessions' states have been read.
func (s *Store) Ready() bool { return s.ready }

// Loading reports whether startup reading is still going on.
func (s *Store) Loading() bool { return s.loading > 0 }

// Summaries returns every session's summary, in no order.
func (s *Store) Summaries() []Summary {
	out := make([]Summary, 0, len(s.sums))
	for _, sum := range s.sums {
		out = append(out, sum)
	}
	return out
}

// Summary returns one session's summary.
func (s *Store) Summary(id string) (Summary, bool) {
	sum, ok := s.sums[id]
	return sum, ok
}

// Live counts the sessions working or waiting for input (a stale one,
// whose process is gone, is neither).
func (s *Store) Live() int {
	n := 0
	for _, sum := range s.sums {
		if d := s.Display(sum); d == StatusWorking || d == StatusNeedsInput {
			n++
		}
	}
	return n
}

// NeedsInput counts the sessions waiting for the user (a permission or
// idle prompt showing).
func (s *Store) NeedsInput() int {
	n := 0
	for _, sum := range s.sums {
		if s.Display(sum) == StatusNeedsInput {
			n++
		}
	}
	return n
}

// Display is the status to show for a summary (see DisplayStatus).
func (s *Store) Display(sum Summary) string {
	if !sum.Loaded {
		return StatusUnknown
	}
	return DisplayStatus(sum, s.reg, func(pid int) bool { return s.alive[pid] })
}

// State returns the full state of a session read recently (nil: none).
func (s *Store) State(id string) *state.Session { return s.states.get(id) }

// Events returns a session's newest events, oldest first.
func (s *Store) Events(id string) []Event { return s.ring[id] }

// AllEvents returns the newest events of every session, oldest first.
func (s *Store) AllEvents() []Event { return s.all }

// Registry returns the session registry and whether it has been read.
func (s *Store) Registry() (registry.File, bool) { return s.reg, s.regOK }

// SetRegistry records the session registry and which of its processes are
// alive.
func (s *Store) SetRegistry(reg registry.File, alive map[int]bool) {
	s.reg, s.regOK, s.alive = reg, true, alive
}

// SetAlive records which of the registry's processes are alive, and
// reports whether that changed anything.
func (s *Store) SetAlive(alive map[int]bool) bool {
	changed := !maps.Equal(s.alive, alive)
	s.alive = alive
	return changed
}

// ApplyListing merges the session folders found on disk into the summaries
// and returns the reads of the states not read yet (newest first, in
// chunks); keep names the session whose whole state to keep ("": the
// newest). Nothing to read means every listed session has been read.
func (s *Store) ApplyListing(list []Listing, keep string) Reads {
	seen := make(map[string]bool, len(list))
	var unread []Listing
	for _, li := range list {
		seen[li.ID] = true
		if _, ok := s.sums[li.ID]; !ok {
			s.sums[li.ID] = Summary{ID: li.ID, LastAt: li.ModTime}
			unread = append(unread, li)
		}
	}
	for id := range s.sums {
		if !seen[id] {
			delete(s.sums, id)
			delete(s.ring, id)
		}
	}
	if len(unread) == 0 {
		s.ready = true
		return Reads{}
	}
	first, rest := unread, []Listing(nil)
	if !s.ready && len(unread) > firstChunk {
		first, rest = unread[:firstChunk], unread[firstChunk:]
	}
	s.loading += len(first)
	if keep == "" {
		keep = first[0].ID
	}
	return Reads{Sessions: []SessionsRead{{List: first, Keep: keep, Next: rest, Startup: true}}}
}

// ApplySessions records the summaries and states read.
func (s *Store) ApplySessions(r Sessions) {
	for _, sum := range r.Sums {
		s.sums[sum.ID] = sum
	}
	for id, st := range r.States {
		s.states.put(id, st)
	}
	if r.Startup {
		s.loading = max(s.loading-len(r.Sums), 0)
	}
	s.ready = true
}

// AfterSessions returns the reads that follow a Sessions result: the next
// startup chunk (keeping the whole state of keep) and the rereads queued
// while it ran.
func (s *Store) AfterSessions(r Sessions, keep string) Reads {
	var out Reads
	if len(r.Next) > 0 {
		n := min(chunk, len(r.Next))
		s.loading += n
		out.Sessions = append(out.Sessions, SessionsRead{List: r.Next[:n], Keep: keep, Next: r.Next[n:], Startup: true})
	}
	if r.Queued {
		s.loadBusy = false
		if len(s.loadAgain) > 0 || s.rescanAgain {
			out.add(s.QueueSessions(nil, false))
		}
	}
	return out
}

// Touch records a session the watcher saw change, with a placeholder
// summary when it is new.
func (s *Store) Touch(id string, sum Summary) {
	if _, ok := s.sums[id]; !ok {
		s.sums[id] = sum
	}
}

// QueueSessions asks to reread the given sessions' state (one read each),
// and the session list when rescan is set; while a reread runs they wait,
// so that results never go backwards.
func (s *Store) QueueSessions(ids []string, rescan bool) Reads {
	for _, id := range ids {
		s.loadAgain[id] = true
	}
	s.rescanAgain = s.rescanAgain || rescan
	if s.loadBusy {
		return Reads{}
	}
	var out Reads
	if s.rescanAgain {
		s.rescanAgain = false
		out.Listing = true
	}
	if len(s.loadAgain) == 0 {
		return out
	}
	list := make([]Listing, 0, len(s.loadAgain))
	for id := range s.loadAgain {
		if !state.ValidSessionID(id) {
			continue
		}
		list = append(list, Listing{ID: id, ModTime: s.sums[id].LastAt})
	}
	s.loadAgain = map[string]bool{}
	s.loadBusy = true
	// Changed sessions are the live ones: keep their whole state.
	out.Sessions = append(out.Sessions, SessionsRead{List: list, Keep: "*", Queued: true})
	return out
}

// QueueTail asks to read what the given logs grew by; while a read runs
// they wait.
func (s *Store) QueueTail(paths []string) Reads {
	for _, p := range paths {
		s.tailAgain[p] = true
	}
	return s.tailMore()
}

func (s *Store) tailMore() Reads {
	if s.tailBusy || len(s.tailAgain) == 0 {
		return Reads{}
	}
	r := &TailRead{Paths: make([]string, 0, len(s.tailAgain)), Offsets: Offsets{}}
	for p := range s.tailAgain {
		r.Paths = append(r.Paths, p)
		if o, ok := s.offsets[p]; ok {
			r.Offsets[p] = o
		}
	}
	s.tailAgain = map[string]bool{}
	s.tailBusy = true
	return Reads{Tail: r}
}

// ApplyTail merges new log entries into the per-session and all-session
// tails, and returns the next reads: after the startup tail, the history
// of selected when its tail holds few events; else the logs that grew
// meanwhile.
func (s *Store) ApplyTail(t Tail, selected string) Reads {
	for p, o := range t.Offsets {
		s.offsets[p] = o
	}
	s.relative(t.Events)
	byID := map[string][]Event{}
	for _, e := range t.Events {
		byID[e.Session] = append(byID[e.Session], e)
	}
	for id, evs := range byID {
		s.ring[id] = mergeEvents(s.ring[id], evs, ringSize)
		LinkDecisions(s.ring[id])
		if t.Initial {
			continue // counted by CountGates (t.Gates)
		}
		for _, e := range evs {
			if e.Gate != nil {
				g := s.gates[id]
				g.add(e.Gate)
				s.gates[id] = g
			}
		}
	}
	for id, g := range t.Gates {
		s.gates[id] = g
	}
	s.all = mergeEvents(s.all, t.Events, allSize)
	LinkDecisions(s.all)
	if t.Initial {
		s.tailed = true
		return s.history(selected)
	}
	s.tailBusy = false
	return s.tailMore()
}

// ApplyHistory merges a session's older events into its tail.
func (s *Store) ApplyHistory(h SessionHistory) {
	s.backfilled[h.ID] = true
	s.relative(h.Events)
	s.ring[h.ID] = mergeEvents(h.Events, s.ring[h.ID], ringSize)
	LinkDecisions(s.ring[h.ID])
}

// Gates is a session's gate decisions counted from the decisions log (up
// to 16 MiB back at startup, then every decision appended).
func (s *Store) Gates(id string) GateTally { return s.gates[id] }

// Select returns the reads a newly selected session needs: its whole state
// and, when the startup tail held few of its events, its history.
func (s *Store) Select(id string) Reads {
	out := Reads{Sessions: []SessionsRead{{List: []Listing{{ID: id, ModTime: s.sums[id].LastAt}}, Keep: id}}}
	out.add(s.history(id))
	return out
}

// history looks further back in the logs for a session when the startup
// tail held few of its events (once per session, and only after the startup
// tail was read).
func (s *Store) history(id string) Reads {
	if id == "" || !s.tailed || s.backfilled[id] || len(s.ring[id]) >= historyWant {
		return Reads{}
	}
	s.backfilled[id] = true
	return Reads{History: id}
}

// relative shortens the project's paths in event details.
func (s *Store) relative(evs []Event) {
	for i := range evs {
		evs[i].Detail = strings.ReplaceAll(evs[i].Detail, s.prefix, "")
	}
}

// mergeEvents appends b to a (both oldest first), orders them and keeps the
// newest n.
func mergeEvents(a, b []Event, n int) []Event {
	out := make([]Event, 0, len(a)+len(b))
	out = append(out, a...)
	out = append(out, b...)
	if len(a) > 0 && len(b) > 0 && !b[0].At.After(a[len(a)-1].At) {
		out = dedupe(out)
		SortEvents(out)
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// dedupe drops repeated events (the same entry read by the startup tail and
// by a history search).
func dedupe(evs []Event) []Event {
	type key struct {
		ev   Event
		gate Decision
	}
	seen := make(map[key]bool, len(evs))
	out := evs[:0]
	for _, e := range evs {
		// A decision is the same whether or not the call it judged was
		// found yet.
		k := key{ev: e}
		if e.Gate != nil {
			k.ev.Gate, k.ev.Detail, k.gate = nil, "", *e.Gate
			k.gate.Judged = ""
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	return out
}

// stateCache is a small most-recently-used cache of full session states.
type stateCache struct {
	max   int
	order []string
	m     map[string]*state.Session
}

func newStateCache(n int) *stateCache { return &stateCache{max: n, m: map[string]*state.Session{}} }

func (c *stateCache) get(id string) *state.Session { return c.m[id] }

func (c *stateCache) put(id string, s *state.Session) {
	if s == nil {
		delete(c.m, id)
		return
	}
	if _, ok := c.m[id]; ok {
		for i, o := range c.order {
			if o == id {
				c.order = append(c.order[:i], c.order[i+1:]...)
				break
			}
		}
	}
	c.m[id] = s
	c.order = append(c.order, id)
	for len(c.order) > c.max {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
}
