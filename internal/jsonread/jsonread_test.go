package jsonread

import (
	"encoding/json"
	"testing"

	"github.com/mailru/easyjson/jlexer"
)

// Each reader stores its own kind, leaves the field for another kind (and
// says so), and treats null as encoding/json does.
func TestReaders(t *testing.T) {
	type rec struct {
		S   string
		SP  *string
		B   bool
		BP  *bool
		F   float64
		I   int64
		Raw json.RawMessage
		L   []string
	}
	names := []string{"s", "sp", "b", "bp", "f", "i", "raw", "l"}
	read := func(r *rec) func(string, *jlexer.Lexer) bool {
		return func(name string, l *jlexer.Lexer) bool {
			switch name {
			case "s":
				return String(l, &r.S)
			case "sp":
				return StringPtr(l, &r.SP)
			case "b":
				return Bool(l, &r.B)
			case "bp":
				return BoolPtr(l, &r.BP)
			case "f":
				return Float(l, &r.F)
			case "i":
				return Int(l, &r.I)
			case "raw":
				return Raw(l, &r.Raw)
			default:
				return List(l, &r.L, String)
			}
		}
	}
	for _, c := range []struct {
		in     string
		ok     bool
		check  func(rec) bool
		reason string
	}{
		{`{"s":"x","S":"y"}`, true, func(r rec) bool { return r.S == "y" }, "a case variant later wins"},
		{`{"s":1}`, false, func(r rec) bool { return r.S == "" }, "a number is not a string"},
		{`{"s":"x","s":null}`, true, func(r rec) bool { return r.S == "x" }, "null leaves a string"},
		{`{"sp":null}`, true, func(r rec) bool { return r.SP == nil }, "null pointer"},
		{`{"sp":5}`, false, func(r rec) bool { return r.SP != nil && *r.SP == "" }, "a pointer is set before the mismatch"},
		{`{"bp":false}`, true, func(r rec) bool { return r.BP != nil && !*r.BP }, "bool pointer"},
		{`{"b":"true"}`, false, func(r rec) bool { return !r.B }, "a string is not a bool"},
		{`{"f":1e400}`, false, func(r rec) bool { return r.F == 0 }, "out of range"},
		{`{"f":-2.5e3}`, true, func(r rec) bool { return r.F == -2500 }, "float"},
		{`{"i":1.5}`, false, func(r rec) bool { return r.I == 0 }, "a fraction is not an integer"},
		{`{"i":42}`, true, func(r rec) bool { return r.I == 42 }, "integer"},
		{`{"raw":null}`, true, func(r rec) bool { return string(r.Raw) == "null" }, "raw keeps null"},
		{`{"raw":{"a":[1, 2]}}`, true, func(r rec) bool { return string(r.Raw) == `{"a":[1, 2]}` }, "raw keeps bytes"},
		{`{"l":["a",2,"c"]}`, false, func(r rec) bool { return len(r.L) == 3 && r.L[1] == "" && r.L[2] == "c" }, "a bad element"},
		{`{"l":null}`, true, func(r rec) bool { return r.L == nil }, "null list"},
		{`{"l":{}}`, false, func(r rec) bool { return r.L == nil }, "an object is not a list"},
		{`{"other":{"deep":[{}]},"s":"z"}`, true, func(r rec) bool { return r.S == "z" }, "unknown members are skipped"},
		{`[1]`, false, func(r rec) bool { return r.S == "" }, "not an object"},
	} {
		var r rec
		ok := Members([]byte(c.in), names, read(&r))
		if ok != c.ok || !c.check(r) {
			t.Errorf("%s: %s: ok %v (want %v), %+v", c.reason, c.in, ok, c.ok, r)
		}
	}
}
