package jsoncodec

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/mailru/easyjson/jlexer"
	"github.com/mailru/easyjson/jwriter"
)

// The writers write what encoding/json writes.
func TestWritersMatchEncodingJSON(t *testing.T) {
	at := time.Date(2026, 11, 24, 9, 0, 0, 5, time.FixedZone("x", 3600))
	for _, c := range []struct {
		v     any
		write func(*jwriter.Writer)
	}{
		{map[string]int{"b": 2, "a": 1, "é": 3}, func(w *jwriter.Writer) {
			WriteMap(w, map[string]int{"b": 2, "a": 1, "é": 3}, WriteInt[int])
		}},
		{map[string]int(nil), func(w *jwriter.Writer) { WriteMap(w, map[string]int(nil), WriteInt[int]) }},
		{[]string{"<a>", "\u2028"}, func(w *jwriter.Writer) { WriteList(w, []string{"<a>", "\u2028"}, WriteString) }},
		{[]string(nil), func(w *jwriter.Writer) { WriteList(w, []string(nil), WriteString) }},
		{at, func(w *jwriter.Writer) { WriteTime(w, at) }},
		{map[string]any{"n": nil, "s": "x", "b": true, "i": 3, "f": 0.5, "l": []any{1.0}, "m": map[string]any{"z": 1}},
			func(w *jwriter.Writer) {
				WriteMap(w, map[string]any{"n": nil, "s": "x", "b": true, "i": 3, "f": 0.5, "l": []any{1.0}, "m": map[string]any{"z": 1}}, WriteAny)
			}},
	} {
		want, _ := json.Marshal(c.v)
		w := jwriter.Writer{}
		c.write(&w)
		if got, err := w.BuildBytes(); err != nil || string(got) != string(want) {
			t.Errorf("got %s (%v), want %s", got, err, want)
		}
	}
	for _, f := range []float64{0, 1, -2.5, 1234567, 1e20, 1e21, 1.5e-6, 1e-7, 2.5e-7, -3e300, math.SmallestNonzeroFloat64} {
		want, _ := json.Marshal(f)
		w := jwriter.Writer{}
		WriteFloat(&w, f)
		if got, _ := w.BuildBytes(); string(got) != string(want) {
			t.Errorf("WriteFloat(%g) = %s, want %s", f, got, want)
		}
	}
	w := jwriter.Writer{}
	WriteFloat(&w, math.NaN())
	if _, err := w.BuildBytes(); err == nil {
		t.Error("NaN written without an error")
	}
	w = jwriter.Writer{}
	o := Open(&w)
	o.Key("a").Int(1)
	o.Key("b").String("x")
	o.Close()
	if got, _ := w.BuildBytes(); string(got) != `{"a":1,"b":"x"}` {
		t.Errorf("object %s", got)
	}
}

// Map, Ptr, Time, Any and Int on ints read as encoding/json reads into the
// same types.
func TestMoreReaders(t *testing.T) {
	var (
		m  map[string]int
		tp *time.Time
		a  any
		n  int
	)
	names := []string{"m", "t", "a", "n"}
	read := func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "m":
			return Map(l, &m, Int[int])
		case "t":
			return Ptr(l, &tp, Time)
		case "a":
			return Any(l, &a)
		default:
			return Int(l, &n)
		}
	}
	if !Members([]byte(`{"m":{"x":1,"y":2},"t":"2026-11-24T09:00:00Z","a":{"k":[1,"s",null]},"n":-7}`), names, read) {
		t.Fatal("a valid document failed")
	}
	if m["x"] != 1 || m["y"] != 2 || tp == nil || tp.Hour() != 9 || n != -7 {
		t.Errorf("m %v t %v n %d", m, tp, n)
	}
	var want any
	_ = json.Unmarshal([]byte(`{"k":[1,"s",null]}`), &want)
	if wb, _ := json.Marshal(want); func() string { b, _ := json.Marshal(a); return string(b) }() != string(wb) {
		t.Errorf("any %v, want %v", a, want)
	}
	for _, doc := range []string{`{"m":{"x":"1"}}`, `{"m":[1]}`, `{"t":"yesterday"}`, `{"t":5}`, `{"n":1e400}`, `{"n":1.5}`} {
		if Members([]byte(doc), names, read) {
			t.Errorf("%s read without a mismatch", doc)
		}
	}
	if !Members([]byte(`{"m":null,"t":null}`), names, read) || m != nil || tp != nil {
		t.Errorf("null: m %v t %v", m, tp)
	}
	if Members([]byte(`{"m":{"x":1`), names, read) {
		t.Error("a truncated document read")
	}
}
