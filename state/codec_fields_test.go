package state

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestCodecKeepsEveryField guards the hand-written codec (codec*.go): every
// field of every type reachable from Session, set by reflection to a value
// of its own, is written and read back. A field added to Session (or to
// Agent, Tokens, …) that the codec does not write or read fails here, with
// its path, instead of being dropped silently from state.json.
func TestCodecKeepsEveryField(t *testing.T) {
	var s Session
	f := filler{}
	f.fill(t, reflect.ValueOf(&s).Elem(), "Session")
	pieces, err := s.encode()
	if err != nil {
		t.Fatal(err)
	}
	var back Session
	if ok, err := decodeSectioned(bytes.Join(pieces, nil), &back, AllSections); !ok || err != nil {
		t.Fatalf("decodeSectioned: ok=%v err=%v", ok, err)
	}
	if f.n < 80 {
		t.Errorf("only %d fields were set: the filler no longer reaches Session's types", f.n)
	}
	for _, d := range diff(reflect.ValueOf(s), reflect.ValueOf(back), "Session") {
		t.Errorf("the codec does not keep %s", d)
	}
}

// filler sets every exported field to a distinct non-zero value.
type filler struct{ n int }

var timeType = reflect.TypeOf(time.Time{})

func (f *filler) fill(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	f.n++
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == timeType {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 24, 9, 30, f.n%60, 1000*f.n, time.UTC)))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			sf := v.Type().Field(i)
			if !sf.IsExported() || sf.Tag.Get("json") == "-" {
				continue
			}
			f.fill(t, v.Field(i), path+"."+sf.Name)
		}
	case reflect.String:
		v.SetString(fmt.Sprintf("v%d", f.n))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(f.n) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(t, v.Elem(), path)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		f.fill(t, v.Index(0), path+"[0]")
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		f.fill(t, k, path+"[key]")
		e := reflect.New(v.Type().Elem()).Elem()
		f.fill(t, e, path+"[value]")
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Interface:
		v.Set(reflect.ValueOf(fmt.Sprintf("v%d", f.n)))
	default:
		t.Fatalf("%s: the filler does not know %s: teach it", path, v.Kind())
	}
}

// diff lists the paths where a and b differ.
func diff(a, b reflect.Value, path string) []string {
	if a.Kind() != b.Kind() {
		return []string{path}
	}
	switch a.Kind() {
	case reflect.Struct:
		if a.Type() == timeType {
			if !a.Interface().(time.Time).Equal(b.Interface().(time.Time)) {
				return []string{fmt.Sprintf("%s (%v, read back as %v)", path, a.Interface(), b.Interface())}
			}
			return nil
		}
		var out []string
		for i := 0; i < a.NumField(); i++ {
			if a.Type().Field(i).IsExported() {
				out = append(out, diff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name)...)
			}
		}
		return out
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return []string{path + " (nil on one side)"}
			}
			return nil
		}
		return diff(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() != b.Len() {
			return []string{fmt.Sprintf("%s (%d entries, read back %d)", path, a.Len(), b.Len())}
		}
		var out []string
		for i := 0; i < a.Len(); i++ {
			out = append(out, diff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return []string{fmt.Sprintf("%s (%s, read back as %s)", path, short(a), short(b))}
	}
	return nil
}

func short(v reflect.Value) string {
	s := fmt.Sprintf("%v", v.Interface())
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return strings.TrimSpace(s)
}
