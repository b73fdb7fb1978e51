package otelship

import (
	"bytes"
	"container/heap"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/otelcursor"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// logFile is one log file with something new to ship.
type logFile struct {
	name string // relative to .spcstr/logs
	id   uint64
	// entries are the new entries, in file order.
	entries []*item
}

// item is one entry read from a log: a hook event or a gate decision.
type item struct {
	file int   // index in the delta's files
	end  int64 // offset just after the entry
	ts   time.Time
	// uid identifies the entry for the receiver (log.record.uid): a hash
	// of its bytes, the same on every run.
	uid     string
	session string
	event   string // CamelCase event name; "" for a decision
	ev      *hookio.Event
	outcome *logs.Outcome
	dec     *gate.Record
	// ans is an answers.json record: not shipped itself, it tells what
	// the hook answered to the event it joins (delta.answers).
	ans *logs.Answer
	// path is the file the tool call works on (tool_input's file_path).
	path string
}

// delta is everything new in a project's logs since the cursor.
type delta struct {
	files []*logFile
	// order is every item, each file's in file order, merged by time.
	order []*item
	// decisions indexes the decisions by the event they judged.
	decisions map[decKey][]*gate.Record
	// answers indexes the answers.json records by the event they answered.
	answers map[logs.AnswerKey]*logs.Answer
	// more says that entries were left for another pass.
	more bool
}

// decKey finds the decisions of one event: the recorder stamps them with
// the time, session and hook of the event they judged.
type decKey struct {
	session, hook string
	at            int64
}

// maxEntry bounds one entry decoded: larger ones are shipped as a log
// record without their payload's fields.
const maxEntry = 8 << 20

// readDelta reads the shipped logs of the project from the cursor's
// offsets: about limit entries in all, so that memory stays bounded
// however large the backlog (d.more then says to call again). Entries
// stamped after cutoff (when it is not zero) are left for a later pass:
// their decisions may not be written yet.
func readDelta(l state.Layout, c *otelcursor.Cursor, cutoff time.Time, limit int, content bool) (*delta, error) {
	dirEntries, err := os.ReadDir(l.LogsDir())
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &delta{decisions: map[decKey][]*gate.Record{}, answers: map[logs.AnswerKey]*logs.Answer{}}, nil
		}
		return nil, fmt.Errorf("list logs: %w", err)
	}
	names := make([]string, 0, len(dirEntries))
	for _, e := range dirEntries {
		if otelcursor.Shipped(e.Name()) && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	// Event logs before decisions.json and answers.json: at equal times a
	// decision or an answer follows the event it judged.
	sort.SliceStable(names, func(i, j int) bool {
		return isEvents(names[i]) && !isEvents(names[j])
	})
	d := &delta{decisions: map[decKey][]*gate.Record{}, answers: map[logs.AnswerKey]*logs.Answer{}}
	perFile := max(1, limit/max(1, len(names)))
	// boundary is the earliest time at which a file's read stopped short:
	// entries after it in other files wait for the next pass, so that
	// every pass ships a time-ordered prefix of all the logs.
	var boundary time.Time
	for _, name := range names {
		path := filepath.Join(l.LogsDir(), name)
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue // gone, or replaced by something that is not a log
		}
		f := &logFile{name: name, id: otelcursor.FileID(fi)}
		idx := len(d.files)
		kind := logs.Classify(name).Kind
		_, _, err = logs.TailEntries(path, c.Offset(name, f.id), func(raw []byte, end int64) error {
			it := decode(raw, kind, content)
			if it == nil {
				// Not an entry spcstr wrote: nothing to ship, but move past it.
				it = &item{}
			}
			if !cutoff.IsZero() && it.ts.After(cutoff) {
				return errStopBefore
			}
			it.file, it.end = idx, end
			f.entries = append(f.entries, it)
			if len(f.entries) >= perFile {
				return logs.ErrStop
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopBefore) {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		if len(f.entries) >= perFile {
			d.more = true
			// The latest time read in the file (its entries need not be
			// in time order): all of them are kept, so a pass always
			// moves on.
			var last time.Time
			for _, it := range f.entries {
				if it.ts.After(last) {
					last = it.ts
				}
			}
			if boundary.IsZero() || last.Before(boundary) {
				boundary = last
			}
		}
		if len(f.entries) > 0 {
			d.files = append(d.files, f)
		}
	}
	if !boundary.IsZero() {
		cutAt(d, boundary)
	}
	for i, f := range d.files {
		for _, it := range f.entries {
			it.file = i
			if it.dec != nil {
				k := decKey{it.dec.SessionID, it.dec.Hook, it.dec.Timestamp.UnixNano()}
				d.decisions[k] = append(d.decisions[k], it.dec)
			}
			if it.ans != nil {
				d.answers[it.ans.Key()] = it.ans
			}
		}
	}
	d.order = merge(d.files)
	return d, nil
}

// cutAt leaves the entries at or after t (from the first one in each
// file) for the next pass: one hook's event and its decisions share a
// time, and must be shipped in the same pass. When that would leave
// nothing (every entry read so far is stamped t or later), the entries
// stamped t are kept, so that the pass still moves on.
func cutAt(d *delta, t time.Time) {
	kept, _ := cut(d, func(ts time.Time) bool { return !ts.After(t) })
	files := d.files[:0]
	for i, f := range d.files {
		if f.entries = kept[i]; len(f.entries) > 0 {
			files = append(files, f)
		}
	}
	d.files = files
}

// cut returns each file's longest prefix whose entries all pass keep.
func cut(d *delta, keep func(time.Time) bool) ([][]*item, int) {
	kept := make([][]*item, len(d.files))
	n := 0
	for i, f := range d.files {
		k := len(f.entries)
		for j, it := range f.entries {
			if !keep(it.ts) {
				k = j
				break
			}
		}
		kept[i] = f.entries[:k]
		n += k
	}
	return kept, n
}

// errStopBefore ends a file's read before the entry that returned it.
var errStopBefore = errors.New("stop before this entry")

func isEvents(name string) bool { return logs.Classify(name).Kind == logs.Events }

// decode reads one entry of a log of the kind given. It returns nil for
// anything that is not one. Without content, the payload's bulky fields
// are dropped at once.
func decode(raw []byte, kind logs.Kind, content bool) *item {
	sum := sha256.Sum256(raw)
	it := &item{uid: hex.EncodeToString(sum[:16])}
	if kind == logs.Answers {
		a, ok := logs.ReadAnswer(raw)
		if !ok {
			return nil
		}
		a.Answer = bytes.Clone(a.Answer) // kept: not the whole line
		it.ans, it.ts, it.session = &a, a.Timestamp, a.SessionID
		return it
	}
	e, ok := logs.ReadHead(raw)
	if !ok || e.SessionID == "" {
		return nil
	}
	if kind == logs.Decisions {
		var r gate.Record
		if e.Decode(&r) != nil {
			return nil
		}
		it.dec, it.ts, it.session = &r, r.Timestamp, r.SessionID
		return it
	}
	if e.Event == "" {
		return nil
	}
	it.ts, it.session, it.event = e.Timestamp, e.SessionID, hookio.CamelName(e.Event)
	if o := e.Outcome; o != nil {
		o.Answer = bytes.Clone(o.Answer) // kept: not the whole line
		it.outcome = o
	}
	if len(e.Input) <= maxEntry {
		if ev, err := hookio.Decode(e.Input); err == nil {
			it.ev = ev
			ev.Raw = nil
			if !content {
				ev.ToolResponse, ev.ToolCalls, ev.BackgroundTasks = nil, nil, nil
				ev.LastAssistantMessage, ev.CompactSummary, ev.Message = "", "", ""
			}
			in := ev.Input()
			it.path = in.FilePath
			if it.path == "" {
				it.path = in.NotebookPath
			}
			if !content {
				ev.ToolInput = nil
			}
		}
	}
	if it.ev == nil {
		it.ev = &hookio.Event{SessionID: e.SessionID}
	}
	return it
}

// merge interleaves the files' entries by time, keeping each file's own
// order (so that a file's shipped entries are always a prefix of it, and
// one offset says how far it has gone).
func merge(files []*logFile) []*item {
	h := &heads{}
	n := 0
	for i, f := range files {
		n += len(f.entries)
		heap.Push(h, head{file: i, f: f})
	}
	out := make([]*item, 0, n)
	for h.Len() > 0 {
		top := &(*h)[0]
		out = append(out, top.f.entries[top.pos])
		top.pos++
		if top.pos == len(top.f.entries) {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
	return out
}

type head struct {
	file, pos int
	f         *logFile
}

type heads []head

func (h heads) Len() int { return len(h) }
func (h heads) Less(i, j int) bool {
	a, b := h[i].f.entries[h[i].pos], h[j].f.entries[h[j].pos]
	if !a.ts.Equal(b.ts) {
		return a.ts.Before(b.ts)
	}
	return h[i].file < h[j].file
}
func (h heads) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *heads) Push(x any)   { *h = append(*h, x.(head)) }
func (h *heads) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
