package logs

import (
	"strconv"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// Kind says what a file in .spcstr/logs holds. Every log name spcstr writes
// or reads is decided here: by Name (kind → name) and Classify (file name →
// kind). docs/layout.md lists the files.
type Kind uint8

// The kinds of file in .spcstr/logs.
const (
	// NotLog is anything else: a lock, a temporary file, a log set aside
	// as corrupt, a hidden or foreign file.
	NotLog Kind = iota
	// Events is the log of one hook event type: <event_snake>.json.
	Events
	// Decisions is the log of gate decision records: decisions.json.
	Decisions
	// Rejected is the log of payloads spcstr refused: rejected.json.
	Rejected
	// Repairs keeps the bytes cut off torn tails: repairs.json.
	Repairs
	// Answers is the log of what the hook answered to events its gates
	// decided on, one Answer a line: answers.json. The event itself is in
	// its own log before any gate runs.
	Answers
)

// Ext is the extension of every log file.
const Ext = ".json"

// String returns the kind's name, for messages.
func (k Kind) String() string {
	switch k {
	case Events:
		return "events"
	case Decisions:
		return "decisions"
	case Rejected:
		return "rejected"
	case Repairs:
		return "repairs"
	case Answers:
		return "answers"
	}
	return "not a log"
}

// Session reports whether the kind's entries belong to sessions (they carry
// a session_id): event logs and decisions. Rejected payloads and repairs
// are the project's, not any session's.
func (k Kind) Session() bool { return k == Events || k == Decisions }

// Name returns the name of the live log of kind k without its extension
// (state.Layout.LogPath adds it): "decisions", "rejected", "repairs", or
// for Events the snake_case name of event (given in either spelling). An
// event named like one of spcstr's own logs is logged as event_<name>, so
// that its entries cannot mix with them. Name returns "" for NotLog and for
// an event name that is not usable.
func Name(k Kind, event string) string {
	switch k {
	case Decisions, Rejected, Repairs, Answers:
		return k.String()
	case Events:
		snake := hookio.SnakeName(event)
		switch snake {
		case Decisions.String(), Rejected.String(), Repairs.String(), Answers.String():
			return "event_" + snake
		}
		return snake
	}
	return ""
}

// File is what a file name in .spcstr/logs says about the file.
type File struct {
	Kind Kind
	// Name is the live log's name without extension ("pre_tool_use",
	// "decisions"), also for a rotated segment of it.
	Name string
	// Segment is 0 for the live log and n ≥ 1 for the rotated segment
	// <name>.<n>.json (older segments have smaller numbers).
	Segment int
}

// Classify tells what the file called name (a base name) in .spcstr/logs
// is: "<name>.json" is a live log, "<name>.<n>.json" (n ≥ 1) a rotated
// segment of one; hidden files, other extensions and anything else are
// NotLog.
func Classify(name string) File {
	stem, ok := strings.CutSuffix(name, Ext)
	if !ok || stem == "" || strings.HasPrefix(name, ".") {
		return File{}
	}
	seg := 0
	if i := strings.IndexByte(stem, '.'); i >= 0 {
		n, ok := segment(stem[i+1:])
		if !ok || i == 0 {
			return File{}
		}
		stem, seg = stem[:i], n
	}
	k := Events
	switch stem {
	case Decisions.String():
		k = Decisions
	case Rejected.String():
		k = Rejected
	case Repairs.String():
		k = Repairs
	case Answers.String():
		k = Answers
	}
	return File{Kind: k, Name: stem, Segment: seg}
}

// segment parses a rotation number: decimal digits, at least 1.
func segment(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1
}

// segmentName is the file name of rotated segment n of the live log at
// base (a path without extension).
func segmentName(base string, n int) string {
	return base + "." + strconv.Itoa(n) + Ext
}
