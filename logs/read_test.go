package logs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func nOf(t *testing.T, raw []byte) int {
	t.Helper()
	var e struct {
		Input struct {
			N int `json:"n"`
		} `json:"input"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("delivered entry is not JSON: %v: %q", err, raw)
	}
	return e.Input.N
}

func scanNs(t *testing.T, content string) ([]int, error) {
	t.Helper()
	var got []int
	err := Scan(strings.NewReader(content), func(raw []byte) error {
		got = append(got, nOf(t, raw))
		return nil
	})
	return got, err
}

func TestScan(t *testing.T) {
	e := func(n int) string { return string(entry(n)) }
	pretty, _ := json.MarshalIndent([]map[string]any{{"input": map[string]int{"n": 1}}, {"input": map[string]int{"n": 2}}}, "", "  ")
	tests := []struct {
		name    string
		content string
		want    string
		wantErr bool
	}{
		{"empty file", "", seq(), false},
		{"spcstr layout", "[\n" + e(1) + ",\n" + e(2) + "\n]\n", seq(1, 2), false},
		{"pretty printed", string(pretty), seq(1, 2), false},
		{"torn mid entry", "[\n" + e(1) + ",\n" + e(2) + ",\n" + e(3)[:40], seq(1, 2), false},
		{"torn after separator", "[\n" + e(1) + ",\n", seq(1), false},
		{"torn separator", "[\n" + e(1) + ",]\n", seq(1), false},
		{"torn right after a bracket inside an entry", "[\n" + e(1) + ",\n" + e(2)[:strings.Index(e(2), "]")+1], seq(1), false},
		{"only [", "[", seq(), false},
		{"object", `{"a":1}`, seq(), true},
		{"garbage", "nope", seq(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scanNs(t, tt.content)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			if seq(got...) != tt.want {
				t.Errorf("entries = %v, want %s", got, tt.want)
			}
		})
	}
}

func TestScanStopAndError(t *testing.T) {
	content := "[\n" + string(entry(1)) + ",\n" + string(entry(2)) + ",\n" + string(entry(3)) + "\n]\n"
	n := 0
	if err := Scan(strings.NewReader(content), func([]byte) error { n++; return ErrStop }); err != nil || n != 1 {
		t.Errorf("ErrStop: n=%d err=%v", n, err)
	}
	boom := errors.New("boom")
	if err := Scan(strings.NewReader(content), func([]byte) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("callback error: %v", err)
	}
	if err := ScanFile(filepath.Join(t.TempDir(), "missing.json"), func([]byte) error { return boom }); err != nil {
		t.Errorf("missing file: %v", err)
	}
}

type tailer struct {
	t      *testing.T
	path   string
	offset int64
}

func (tl *tailer) next() (ns []int, reset bool) {
	tl.t.Helper()
	off, reset, err := Tail(tl.path, tl.offset, func(raw []byte) error {
		ns = append(ns, nOf(tl.t, raw))
		return nil
	})
	if err != nil {
		tl.t.Fatal(err)
	}
	tl.offset = off
	return ns, reset
}

func TestTailAcrossAppends(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.json")
	tl := &tailer{t: t, path: p}
	if ns, _ := tl.next(); len(ns) != 0 || tl.offset != 0 {
		t.Fatalf("missing file: %v %d", ns, tl.offset)
	}
	mustAppend(t, p, entry(1), Options{})
	mustAppend(t, p, entry(2), Options{})
	if ns, _ := tl.next(); seq(ns...) != seq(1, 2) {
		t.Fatalf("first read: %v", ns)
	}
	if ns, _ := tl.next(); len(ns) != 0 {
		t.Fatalf("nothing new, got %v", ns)
	}
	for i := 3; i <= 6; i++ {
		mustAppend(t, p, entry(i), Options{})
		if ns, reset := tl.next(); seq(ns...) != seq(i) || reset {
			t.Fatalf("after append %d: %v (reset %v)", i, ns, reset)
		}
	}
	// A partial entry being written is not delivered, then is once complete.
	data, _ := os.ReadFile(p)
	full := append([]byte(nil), data...)
	torn := append(append(data[:len(data)-3], ",\n"...), entry(7)[:50]...)
	_ = os.WriteFile(p, torn, 0o644)
	if ns, _ := tl.next(); len(ns) != 0 {
		t.Fatalf("partial entry delivered: %v", ns)
	}
	_ = os.WriteFile(p, full, 0o644) // the writer's repair drops it
	mustAppend(t, p, entry(8), Options{})
	if ns, _ := tl.next(); seq(ns...) != seq(8) {
		t.Fatalf("after repair: %v", ns)
	}
	// Every offset Tail returns is a place a fresh Tail can start from.
	mustAppend(t, p, entry(9), Options{})
	var n int
	off, _, _ := Tail(p, 0, func([]byte) error { n++; return nil })
	if n != 8 || off != tl.offset+int64(len(entry(9)))+2 {
		t.Errorf("from 0: %d entries, offset %d", n, off)
	}
}

func TestTailStop(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.json")
	for i := 1; i <= 4; i++ {
		mustAppend(t, p, entry(i), Options{})
	}
	var got []int
	off, _, err := Tail(p, 0, func(raw []byte) error {
		got = append(got, nOf(t, raw))
		if len(got) == 2 {
			return ErrStop
		}
		return nil
	})
	if err != nil || seq(got...) != seq(1, 2) {
		t.Fatalf("stop: %v %v", got, err)
	}
	tl := &tailer{t: t, path: p, offset: off}
	if ns, _ := tl.next(); seq(ns...) != seq(3, 4) {
		t.Errorf("resume after stop: %v", ns)
	}
	boom := errors.New("boom")
	if _, _, err := Tail(p, 0, func([]byte) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("callback error: %v", err)
	}
}

func TestTailAcrossRotation(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.json")
	opt := Options{MaxBytes: 700}
	tl := &tailer{t: t, path: p}
	var seen []int
	resets := 0
	for i := 1; i <= 20; i++ {
		mustAppend(t, p, entry(i), opt)
		ns, reset := tl.next()
		if reset {
			resets++
		}
		seen = append(seen, ns...)
	}
	want := make([]int, 20)
	for i := range want {
		want[i] = i + 1
	}
	if seq(seen...) != seq(want...) {
		t.Errorf("entries seen across rotations = %v", seen)
	}
	rotated, _ := filepath.Glob(filepath.Join(dir, "x.*.json"))
	if resets == 0 || resets != len(rotated) {
		t.Errorf("resets = %d, rotations = %d", resets, len(rotated))
	}
	// A log that disappears reports a reset.
	_ = os.Remove(p)
	if _, reset, err := Tail(p, tl.offset, func([]byte) error { return nil }); !reset || err != nil {
		t.Errorf("removed log: reset=%v err=%v", reset, err)
	}
}

func TestTailLegacyLayout(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.json")
	_ = os.WriteFile(p, []byte(`[{"input":{"n":1}},{"input":{"n":2}}]`), 0o644)
	mustAppend(t, p, entry(3), Options{})
	tl := &tailer{t: t, path: p}
	ns, _ := tl.next()
	// Compact legacy entries share a line and are not tailed; every entry
	// appended by spcstr is.
	if len(ns) == 0 || ns[len(ns)-1] != 3 {
		t.Errorf("tail of extended legacy log: %v", ns)
	}
	mustAppend(t, p, entry(4), Options{})
	if ns, _ := tl.next(); seq(ns...) != seq(4) {
		t.Errorf("next: %v", ns)
	}
}

func TestScanFileMatchesAppend(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.json")
	for i := 0; i < 50; i++ {
		mustAppend(t, p, entry(i), Options{})
	}
	n := 0
	if err := ScanFile(p, func(raw []byte) error {
		if got := nOf(t, raw); got != n {
			return fmt.Errorf("entry %d has n=%d", n, got)
		}
		n++
		return nil
	}); err != nil || n != 50 {
		t.Errorf("ScanFile: %d entries, %v", n, err)
	}
}
