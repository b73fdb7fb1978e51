package logs

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/mailru/easyjson/jwriter"

	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
	"github.com/dylan-gluck/spcstr/internal/termtext"
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

// cut shortens s to at most n bytes on a rune boundary and says how much
// was left out.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	kept := termtext.Cut(s, n)
	return kept + "… [" + strconv.Itoa(len(s)-len(kept)) + " bytes truncated by spcstr]"
}
