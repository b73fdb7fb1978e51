package logs

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/mailru/easyjson/jwriter"

	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
)

// DefaultCap is the default size above which a payload field is cut
// (docs/logs.md).
const DefaultCap = 64 << 10

//go:generate go run ../tools/jsongen -no_std_marshalers entry.go

// Entry is one line of an event log. Its encoder is generated
// (entry_easyjson.go): encoding/json would build one by reflection in
// every hook process.
//
//easyjson:json
type Entry struct {
	Timestamp time.Time       `json:"timestamp"`
	SessionID string          `json:"session_id"`
	Event     string          `json:"event"`
	Input     json.RawMessage `json:"input"`
	Outcome   *Outcome        `json:"outcome,omitempty"`
	// Truncated maps each payload field that was cut to its original size
	// in bytes.
	Truncated Sizes `json:"truncated,omitempty"`
}

// Sizes maps names to sizes in bytes. It is written with its keys sorted,
// as encoding/json writes a map, so that an entry is always the same line.
type Sizes map[string]int

// MarshalEasyJSON writes s for the generated encoder, keys sorted.
func (s Sizes) MarshalEasyJSON(w *jwriter.Writer) { jsoncodec.WriteMap(w, s, jsoncodec.WriteInt[int]) }

// Outcome is what spcstr did with an event: the answer it printed (if any),
// how long the hook took, and its own error (if any).
type Outcome struct {
	Answer     json.RawMessage `json:"answer,omitempty"`
	DurationMS float64         `json:"duration_ms"`
	Decisions  int             `json:"decisions,omitempty"`
	Error      string          `json:"error,omitempty"`
}

// Encode marshals the entry to a single line. Input and Outcome.Answer
// are written as they are, so they must be compact JSON (CapPayload's and
// hookio's answers are).
func (e *Entry) Encode() ([]byte, error) {
	return jsoncodec.Marshal(e)
}

// WholePayload is the Truncated key of a payload cut as a whole: one that is
// not a JSON object (a rejected payload) and is larger than the limit.
const WholePayload = "*"

// CapPayload returns raw as a single line of valid UTF-8 JSON in which every
// top-level field whose encoded size exceeds limit is replaced by a JSON
// string holding its first limit bytes (a string field's text, otherwise its
// JSON text). The returned map gives the original size of each field cut.
// A payload that is not an object is returned compacted, or as a JSON string
// when it is not JSON at all; either is cut whole (key WholePayload) when
// larger than limit. Invalid UTF-8 is replaced by U+FFFD, so that strict
// readers can parse every log.
func CapPayload(raw []byte, limit int) (json.RawMessage, map[string]int) {
	raw = bytes.TrimSpace(raw)
	if limit <= 0 {
		limit = DefaultCap
	}
	size := len(raw)
	if !utf8.Valid(raw) {
		raw = bytes.ToValidUTF8(raw, []byte("\uFFFD"))
	}
	var buf bytes.Buffer
	switch {
	case len(raw) <= limit:
		// Compact checks the payload as it compacts it: one pass.
		if json.Compact(&buf, raw) == nil {
			return buf.Bytes(), nil
		}
	case raw[0] == '{' && json.Valid(raw):
		return capMembers(raw, limit)
	}
	// Not JSON, or a large payload that is not an object: kept as text.
	s := string(raw)
	var truncated map[string]int
	if len(s) > limit {
		s = cut(s, limit)
		truncated = map[string]int{WholePayload: size}
	}
	b, _ := json.Marshal(s)
	return b, truncated
}

// capMembers cuts each member of the large JSON object raw whose encoding
// is over limit (CapPayload).
func capMembers(raw []byte, limit int) (json.RawMessage, map[string]int) {
	var buf bytes.Buffer
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // '{'
		return raw, nil
	}
	var cutSizes map[string]int
	buf.WriteByte('{')
	first := true
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			break
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(key)
		buf.Write(k)
		buf.WriteByte(':')
		if len(val) > limit {
			if cutSizes == nil {
				cutSizes = map[string]int{}
			}
			cutSizes[key] = len(val)
			text := string(val)
			if len(val) > 0 && val[0] == '"' {
				var s string
				if json.Unmarshal(val, &s) == nil {
					text = s
				}
			}
			b, _ := json.Marshal(cut(text, limit))
			buf.Write(b)
			continue
		}
		_ = json.Compact(&buf, val)
	}
	buf.WriteByte('}')
	return buf.Bytes(), cutSizes
}

// cut shortens s to at most n bytes on a rune boundary and says how much
// was left out.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	m := n
	for m > 0 && !utf8.RuneStart(s[m]) {
		m--
	}
	return s[:m] + "… [" + strconv.Itoa(len(s)-m) + " bytes truncated by spcstr]"
}
