package jsoncodec

import (
	"encoding/json"
	"errors"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/mailru/easyjson/jwriter"
)

// Writing JSON as encoding/json writes it, without its reflection: the
// members of an object in the order the caller gives them, maps with their
// keys sorted, numbers and times in encoding/json's format.

// ObjectWriter writes one JSON object member by member.
type ObjectWriter struct {
	w *jwriter.Writer
	n int
}

// Open starts an object on w.
func Open(w *jwriter.Writer) *ObjectWriter {
	w.RawByte('{')
	return &ObjectWriter{w: w}
}

// Key writes the next member's name and returns the writer for its value.
func (o *ObjectWriter) Key(name string) *jwriter.Writer {
	if o.n > 0 {
		o.w.RawByte(',')
	}
	o.n++
	o.w.String(name)
	o.w.RawByte(':')
	return o.w
}

// Close ends the object.
func (o *ObjectWriter) Close() { o.w.RawByte('}') }

// WriteMap writes m as an object with its keys sorted, each value by write
// (nil: null).
func WriteMap[V any](w *jwriter.Writer, m map[string]V, write func(*jwriter.Writer, V)) {
	if m == nil {
		w.RawString("null")
		return
	}
	o := Open(w)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		write(o.Key(k), m[k])
	}
	o.Close()
}

// WriteList writes list as an array, each element by write (nil: null).
func WriteList[T any](w *jwriter.Writer, list []T, write func(*jwriter.Writer, T)) {
	if list == nil {
		w.RawString("null")
		return
	}
	w.RawByte('[')
	for i, v := range list {
		if i > 0 {
			w.RawByte(',')
		}
		write(w, v)
	}
	w.RawByte(']')
}

// WriteString, WriteInt and WriteBool write one value (for WriteMap and
// WriteList).
func WriteString(w *jwriter.Writer, s string) { w.String(s) }

// WriteInt writes an integer.
func WriteInt[T ~int | ~int64](w *jwriter.Writer, n T) { w.Int64(int64(n)) }

// WriteBool writes a boolean.
func WriteBool(w *jwriter.Writer, b bool) { w.Bool(b) }

// WriteAny writes one value of a map[string]any: the kinds such a map
// usually holds directly, as encoding/json writes them, anything else
// through encoding/json (whose reflection the caller then pays).
func WriteAny(w *jwriter.Writer, v any) {
	switch x := v.(type) {
	case nil:
		w.RawString("null")
	case string:
		w.String(x)
	case bool:
		w.Bool(x)
	case int:
		w.Int(x)
	case int64:
		w.Int64(x)
	case float64:
		WriteFloat(w, x)
	default:
		w.Raw(json.Marshal(v))
	}
}

// WriteTime writes t as time.Time's MarshalJSON does.
func WriteTime(w *jwriter.Writer, t time.Time) { w.Raw(t.MarshalJSON()) }

// errFloat is what encoding/json refuses to encode.
var errFloat = errors.New("json: unsupported value: NaN or ±Inf")

// WriteFloat writes f as encoding/json does: decimal notation between
// 1e-6 and 1e21, exponent notation beyond, the shortest that reads back
// exactly. NaN and ±Inf are an error, as there.
func WriteFloat(w *jwriter.Writer, f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		w.Error = errFloat
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9, as encoding/json writes it
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	w.Raw(b, nil)
}
