package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"

	"github.com/mailru/easyjson/jwriter"

	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
)

// Section names one of state.json's long lists. A hook that does not need
// a list can leave it encoded (UpdateOptions.Lazy): the bytes are copied
// back unchanged, so a hook's cost does not grow with the lists. Lists that
// a hook only appends to (prompts, errors, notifications, files) may stay
// lazy even when the hook appends: the new entries are merged on write.
type Section uint8

// The sections, in the order state.json stores them, one per line.
const (
	SectionAgents Section = 1 << iota
	SectionFilesNew
	SectionFilesEdited
	SectionFilesRead
	SectionErrors
	SectionPrompts
	SectionNotifications

	// SectionFiles is the three file lists.
	SectionFiles = SectionFilesNew | SectionFilesEdited | SectionFilesRead
	// AllSections is every section.
	AllSections Section = 1<<iota - 1
)

const nSections = 7

// lineSections is every section with a line of its own.
const lineSections Section = 1<<nSections - 1

// SectionDoneAgents is no line of its own but the finished agents of the
// head's subagents member: the read positions of the transcripts read to
// their end (one per agent the session ran). A hook that leaves them
// encoded copies them back as they were, so a session's finished agents
// cost a hook next to nothing; LoadDoneSubagents decodes them when
// something needs every agent (tracking one).
const SectionDoneAgents Section = 1 << nSections

// sectionLine is how each section's line starts and ends in the layout
// written by encode: the head object's fields on the first line, then one
// line per section.
var sectionLine = [nSections]struct{ prefix, suffix string }{
	{`"agents_history":`, `,`},
	{`"files":{"new":`, `,`},
	{`"edited":`, `,`},
	{`"read":`, `},`},
	{`"errors":`, `,`},
	{`"prompts":`, `,`},
	{`"notifications":`, `}`},
}

// lazy is the encoded form of the sections a hook left undecoded.
type lazy struct {
	raw [nSections][]byte
	// extra holds the encoded paths appended to an encoded file list, each
	// with its leading comma, so that the list is not copied.
	extra [nSections][]byte
	// encoded marks the sections still encoded (zero: all decoded).
	encoded Section
	// doneAgents holds the finished agents' members of the subagents
	// object ("id":{...}, comma-separated) while they are left encoded
	// (SectionDoneAgents; nil once decoded, or when there are none).
	doneAgents []byte
	// keepDone is set while the head is read by an update that leaves
	// SectionDoneAgents encoded.
	keepDone bool
}

// list is a section's list, with its codec (section in codec.go).
type list interface {
	jsoncodec.Marshaler
	jsoncodec.Unmarshaler
	len() int
	clear()
	// appendList appends another list of the same kind (a path only when
	// not listed yet).
	appendList(list)
	// fresh returns an empty list of the same kind, not tied to a field.
	fresh() list
}

// addNewPaths appends the paths of more not listed in dst yet.
func addNewPaths(dst *[]string, more []string) {
	for _, p := range more {
		if !slices.Contains(*dst, p) {
			*dst = append(*dst, p)
		}
	}
}

// sectionValue returns the field holding section i, as a list.
func (s *Session) sectionValue(i int) list {
	switch Section(1 << i) {
	case SectionAgents:
		return section[Agent]{&s.AgentsHistory, readAgent, writeAgent, nil}
	case SectionFilesNew:
		return paths(&s.Files.New)
	case SectionFilesEdited:
		return paths(&s.Files.Edited)
	case SectionFilesRead:
		return paths(&s.Files.Read)
	case SectionErrors:
		return section[Error]{&s.Errors, readError, writeError, nil}
	case SectionPrompts:
		return section[Prompt]{&s.Prompts, readPrompt, writePrompt, nil}
	default:
		return section[Notification]{&s.Notifications, readNotification, writeNotification, nil}
	}
}

// paths is a file list's section.
func paths(p *[]string) section[string] {
	return section[string]{p, jsoncodec.String, jsoncodec.WriteString, addNewPaths}
}

// sectionLen returns the length of section i's (decoded or appended) list.
func (s *Session) sectionLen(i int) int { return s.sectionValue(i).len() }

// encode returns the state in the sectioned layout, as pieces to write in
// order: valid JSON that any reader decodes whole, whose sections a hook
// can also find by line. Sections left encoded are passed through, not
// copied.
func (s *Session) encode() ([][]byte, error) {
	var body [nSections][][]byte
	sums := make([]int64, nSections)
	for i := 0; i < nSections; i++ {
		var p [][]byte
		if s.lz.encoded&(1<<i) != 0 {
			raw := s.lz.raw[i]
			if x := s.lz.extra[i]; len(x) > 0 {
				if len(raw) > 2 {
					p = [][]byte{raw[:len(raw)-1], x, []byte("]")}
				} else {
					p = [][]byte{[]byte("["), x[1:], []byte("]")}
				}
			} else {
				p = [][]byte{raw}
			}
		} else {
			data, err := jsoncodec.Marshal(s.sectionValue(i))
			if err != nil {
				return nil, err
			}
			if bytes.Equal(data, []byte("null")) {
				data = []byte("[]")
			}
			p = [][]byte{data}
		}
		var sum uint32
		for _, b := range p {
			sum = crc32.Update(sum, crc32.IEEETable, b) // as sectionSum
		}
		body[i], sums[i] = p, int64(sum)
	}
	s.SectionSums = sums
	h, err := jsoncodec.Marshal(head{s})
	if err != nil {
		return nil, err
	}
	pieces := make([][]byte, 0, 2+5*nSections)
	pieces = append(pieces, h[:len(h)-1], []byte(",\n"))
	for i := 0; i < nSections; i++ {
		pieces = append(pieces, []byte(sectionLine[i].prefix))
		pieces = append(pieces, body[i]...)
		pieces = append(pieces, []byte(sectionLine[i].suffix+"\n"))
	}
	return pieces, nil
}

// sectionSum is a section line's checksum: CRC-32 (IEEE), computed with
// carry-less multiplication on amd64 and arm64 (a 300 KiB state in tens of
// microseconds). Not CRC-32C: building its hardware tables cost every hook
// 0.2 ms at start-up. A file whose sums were made otherwise (an older
// spcstr's CRC-32C) only has its kept sections checked by json.Valid once.
func sectionSum(b []byte) int64 { return int64(crc32.ChecksumIEEE(b)) }

// decodeSectioned reads a state.json in the sectioned layout, decoding the
// head and the sections in need and keeping the others encoded. It reports
// false when data is not in that layout (an older or hand-edited file),
// which the caller then decodes whole.
func decodeSectioned(data []byte, s *Session, need Section) (bool, error) {
	lines := bytes.Split(data, []byte("\n"))
	if len(lines) != nSections+2 || len(bytes.TrimSpace(lines[nSections+1])) != 0 {
		return false, nil
	}
	h := lines[0]
	if len(h) < 2 || h[0] != '{' || h[len(h)-1] != ',' {
		return false, nil
	}
	var raws [nSections][]byte
	for i := 0; i < nSections; i++ {
		l := lines[i+1]
		raw, ok := bytes.CutPrefix(l, []byte(sectionLine[i].prefix))
		if ok {
			raw, ok = bytes.CutSuffix(raw, []byte(sectionLine[i].suffix))
		}
		if !ok || len(raw) < 2 || raw[0] != '[' || raw[len(raw)-1] != ']' {
			return false, nil
		}
		raws[i] = raw
	}
	hb := append(append([]byte(nil), h[:len(h)-1]...), '}')
	s.lz.keepDone = need&SectionDoneAgents == 0
	err := jsoncodec.Unmarshal(hb, head{s})
	s.lz.keepDone = false
	if err != nil {
		return true, err
	}
	// A section left encoded is copied back as it is: it must be JSON,
	// or the hook would write a damaged file again and again. A section
	// whose bytes match the sum the last hook wrote for it is what that
	// hook wrote (valid by induction: it encoded it, or checked it the
	// same way); any other is scanned (json.Valid, which costs about 8 ms
	// a MiB, so it is not paid on every hook). The decoded ones are
	// checked by decoding.
	sums := s.SectionSums
	for i := range raws {
		if need&Section(1<<i) != 0 {
			continue
		}
		if len(sums) == nSections && sectionSum(raws[i]) == sums[i] {
			continue
		}
		if !json.Valid(raws[i]) {
			return true, fmt.Errorf("its %s line does not parse", strings.TrimSuffix(strings.Trim(sectionLine[i].prefix, `"{:`), `"`))
		}
	}
	s.lz.raw, s.lz.encoded = raws, lineSections
	return true, s.load(need)
}

// load decodes the sections in need that are still encoded, keeping any
// entries appended to them meanwhile (after the decoded ones; a path
// already listed is not added twice).
func (s *Session) load(need Section) error {
	for i := 0; i < nSections; i++ {
		bit := Section(1 << i)
		if need&bit == 0 || s.lz.encoded&bit == 0 {
			continue
		}
		l := s.sectionValue(i)
		var added list
		if l.len() > 0 {
			// Set the appended entries aside and decode into a new
			// list: decoding would reuse their elements and keep their
			// fields where the old entries omit them.
			added = l.fresh()
			added.appendList(l)
		}
		l.clear()
		if err := jsoncodec.Unmarshal(s.sectionRaw(i), l); err != nil {
			return fmt.Errorf("section %s: %w", sectionLine[i].prefix, err)
		}
		s.noteDropped(bit, l.len())
		if added != nil {
			l.appendList(added)
		}
		s.lz.encoded &^= bit
		s.lz.raw[i], s.lz.extra[i] = nil, nil
	}
	return nil
}

// sectionRaw returns encoded section i with the paths appended to it.
func (s *Session) sectionRaw(i int) []byte {
	raw, x := s.lz.raw[i], s.lz.extra[i]
	if len(x) == 0 {
		return raw
	}
	out := make([]byte, 0, len(raw)+len(x)+1)
	if len(raw) > 2 {
		out = append(append(out, raw[:len(raw)-1]...), x...)
	} else {
		out = append(append(out, '['), x[1:]...)
	}
	return append(out, ']')
}

// Decode decodes the sections in secs that an update left encoded, so
// that code which reads them (a gate) sees them whole. Entries appended
// meanwhile are kept.
func (s *Session) Decode(secs Section) error { return s.load(secs) }

// merge settles the sections left encoded after an update: untouched ones
// stay as they were; paths appended to a file list are added unless
// already listed (found in the encoded list, without decoding it); entries
// appended to any other list are added after its decoded entries.
func (s *Session) merge() error {
	var decode Section
	for i := 0; i < nSections; i++ {
		bit := Section(1 << i)
		if s.lz.encoded&bit == 0 || s.sectionLen(i) == 0 {
			continue
		}
		if bit&SectionFiles != 0 {
			added := s.sectionValue(i).(section[string]).p
			s.lz.extra[i] = appendNewPaths(s.lz.raw[i], s.lz.extra[i], *added)
			*added = []string{}
			continue
		}
		decode |= bit
	}
	return s.load(decode)
}

// appendNewPaths adds to extra (",<path>" for each) the paths that neither
// the encoded list of strings raw nor extra holds yet. An element of a
// compact JSON list of strings is found as its encoding preceded by '['
// or ',' and followed by ',' or ']': inside a string every '"' is escaped,
// so that pattern cannot occur within one.
func appendNewPaths(raw, extra []byte, paths []string) []byte {
	for _, p := range paths {
		w := jwriter.Writer{}
		w.String(p)
		enc := w.Buffer.BuildBytes()
		if containsElement(raw, enc) || containsElement(append(append([]byte{}, extra...), ']'), enc) {
			continue
		}
		extra = append(append(extra, ','), enc...)
	}
	return extra
}

func containsElement(raw, enc []byte) bool {
	for off := 0; ; {
		i := bytes.Index(raw[off:], enc)
		if i < 0 {
			return false
		}
		at := off + i
		end := at + len(enc)
		if at > 0 && (raw[at-1] == '[' || raw[at-1] == ',') && end < len(raw) && (raw[end] == ',' || raw[end] == ']') {
			return true
		}
		off = at + 1
	}
}
