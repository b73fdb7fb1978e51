package logs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var ctx = context.Background()

func entry(i int) []byte {
	return []byte(fmt.Sprintf(`{"timestamp":"2026-05-01T10:00:00Z","session_id":"s","event":"PreToolUse","input":{"n":%d,"text":"entry %d, with \"quotes\", commas, [brackets] and }braces{"}}`, i, i))
}

func mustAppend(t *testing.T, p string, e []byte, opt Options) {
	t.Helper()
	if err := Append(ctx, p, e, opt); err != nil {
		t.Fatalf("Append: %v", err)
	}
}

// entries parses the whole file strictly as a JSON array and returns the
// "n" of each entry.
func entries(t *testing.T, p string) []int {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var arr []struct {
		Input struct {
			N int `json:"n"`
		} `json:"input"`
	}
	if err := json.Unmarshal(data, &arr); err != nil {
		t.Fatalf("%s is not a JSON array: %v\n%s", filepath.Base(p), err, tail(data))
	}
	ns := make([]int, len(arr))
	for i, e := range arr {
		ns[i] = e.Input.N
	}
	return ns
}

func tail(b []byte) string {
	if len(b) > 400 {
		b = b[len(b)-400:]
	}
	return string(b)
}

func seq(ns ...int) string { return fmt.Sprint(ns) }

func TestAppendFormat(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pre_tool_use.json")
	mustAppend(t, p, []byte(`{"a":1}`), Options{})
	if got, _ := os.ReadFile(p); string(got) != "[\n{\"a\":1}\n]\n" {
		t.Fatalf("first append: %q", got)
	}
	mustAppend(t, p, []byte(`{"a":2}`), Options{})
	mustAppend(t, p, []byte(`{"a":3}`), Options{})
	if got, _ := os.ReadFile(p); string(got) != "[\n{\"a\":1},\n{\"a\":2},\n{\"a\":3}\n]\n" {
		t.Fatalf("three appends: %q", got)
	}
	// No lock file or temp file ends in .json.
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "*.json"))
	if len(files) != 1 {
		t.Errorf("json files: %v", files)
	}
}

func TestAppendRejectsBadEntries(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.json")
	for _, e := range []string{"", "{\"a\":\n1}", "{}\n"} {
		if err := Append(ctx, p, []byte(e), Options{}); err == nil {
			t.Errorf("Append(%q) accepted", e)
		}
	}
	if _, err := os.Stat(p); err == nil {
		t.Error("rejected entries created the log")
	}
}

// Logs written by other tools (the seed's pretty-printed arrays, compact
// arrays, empty arrays) are extended in place, keeping every entry.
func TestAppendToExistingArrays(t *testing.T) {
	pretty, _ := json.MarshalIndent([]map[string]any{{"input": map[string]int{"n": 1}}, {"input": map[string]int{"n": 2}}}, "", "  ")
	tests := []struct {
		name, content string
		want          string
	}{
		{"empty file", "", seq(7)},
		{"empty array", "[]", seq(7)},
		{"empty array spaced", "[ ]\n", seq(7)},
		{"empty array lines", "[\n]\n", seq(7)},
		{"pretty printed", string(pretty), seq(1, 2, 7)},
		{"pretty printed, trailing blank lines", string(pretty) + "\n\n\n\n\n\n\n\n\n\n", seq(1, 2, 7)},
		{"CRLF", strings.ReplaceAll(string(pretty), "\n", "\r\n") + "\r\n", seq(1, 2, 7)},
		{"compact one line", `[{"input":{"n":1}},{"input":{"n":2}}]`, seq(1, 2, 7)},
		{"leading whitespace", "\n\n  [\n{\"input\":{\"n\":1}}\n]", seq(1, 7)},
		{"long whitespace tail", "[\n{\"input\":{\"n\":1}}\n]" + strings.Repeat(" ", 1000), seq(1, 7)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x.json")
			if err := os.WriteFile(p, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			mustAppend(t, p, entry(7), Options{})
			if got := seq(entries(t, p)...); got != tt.want {
				t.Errorf("entries = %s, want %s", got, tt.want)
			}
			if asides, _ := filepath.Glob(p + ".corrupt-*"); len(asides) != 0 {
				t.Errorf("a valid log was set aside: %v", asides)
			}
		})
	}
}

// A file that is not a log is never overwritten: it is set aside whole and a
// new log begins.
func TestAppendSetsAsideNonLogs(t *testing.T) {
	for name, content := range map[string]string{
		"object":                   `{"not":"a log"}`,
		"text":                     "hello\nworld\n",
		"binary":                   "\x00\x01\x02\xff",
		"two bad lines after [":    "[\n{\"input\":{\"n\":1}},\nnot json\nstill not json",
		"object lines without [":   "{\"input\":{\"n\":1}},\n{\"input\":{\"n\":2}}\n]\n",
		"number":                   "42",
		"bracket with a bad entry": "[\n{\"input\":{\"n\":1}},\n{broken,\n{broken again",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x.json")
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			mustAppend(t, p, entry(5), Options{})
			if got := seq(entries(t, p)...); got != seq(5) {
				t.Errorf("new log = %s", got)
			}
			asides, _ := filepath.Glob(p + ".corrupt-*")
			if len(asides) != 1 {
				t.Fatalf("set aside: %v", asides)
			}
			if kept, _ := os.ReadFile(asides[0]); string(kept) != content {
				t.Errorf("set-aside bytes changed: %q", kept)
			}
		})
	}
}

// baseLog writes a log of entries 1..n through Append and returns its bytes.
func baseLog(t *testing.T, p string, n int) []byte {
	t.Helper()
	for i := 1; i <= n; i++ {
		mustAppend(t, p, entry(i), Options{})
	}
	data, err := os.ReadFile(p)
	if err != nil && n > 0 {
		t.Fatal(err)
	}
	return data
}

// tornAppends returns every state a crash can leave while an append writes
// its bytes over the closing bracket of data: the first k bytes of the write
// are on disk, the rest of the old bytes beyond them are still there.
func tornAppends(data, e []byte) [][]byte {
	var pos int
	var write []byte
	if len(data) == 0 {
		write = append(append([]byte("[\n"), e...), "\n]\n"...)
	} else {
		pos = len(bytes.TrimRight(data, " \n\r\t"))
		pos = len(bytes.TrimRight(data[:pos-1], " \n\r\t")) // before "]"
		if data[pos-1] == '[' {
			write = append([]byte("\n"), e...)
		} else {
			write = append([]byte(",\n"), e...)
		}
		write = append(write, "\n]\n"...)
	}
	var states [][]byte
	for k := 0; k <= len(write); k++ {
		s := append([]byte(nil), data[:pos]...)
		s = append(s, write[:k]...)
		if pos+k < len(data) {
			s = append(s, data[pos+k:]...)
		}
		states = append(states, s)
	}
	return states
}

// An append killed at any byte leaves a tail that the next append repairs:
// the file is a JSON array again, every complete entry is kept in order, and
// the torn entry is either whole or gone (kept in repairs.json).
func TestTornTailEveryCutPoint(t *testing.T) {
	for _, n := range []int{0, 1, 3} {
		t.Run(fmt.Sprintf("%d entries before", n), func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "post_tool_use.json")
			data := baseLog(t, p, n)
			torn := entry(100)
			states := tornAppends(data, torn)
			for k, st := range states {
				if err := os.WriteFile(p, st, 0o644); err != nil {
					t.Fatal(err)
				}
				_ = os.Remove(filepath.Join(dir, "repairs.json"))
				mustAppend(t, p, entry(200), Options{})

				want := []int{}
				for i := 1; i <= n; i++ {
					want = append(want, i)
				}
				// The torn entry survives when its whole line made it to disk.
				if bytes.Contains(st, torn) {
					want = append(want, 100)
				}
				want = append(want, 200)
				if got := entries(t, p); seq(got...) != seq(want...) {
					t.Fatalf("cut %d/%d (%q): entries %v, want %v", k, len(states)-1, tail(st), got, want)
				}
				if asides, _ := filepath.Glob(p + ".corrupt-*"); len(asides) != 0 {
					t.Fatalf("cut %d: log set aside instead of repaired (%q)", k, tail(st))
				}
				// Anything cut off is kept in repairs.json, which parses too.
				if rep, err := os.ReadFile(filepath.Join(dir, "repairs.json")); err == nil {
					var recs []map[string]any
					if err := json.Unmarshal(rep, &recs); err != nil {
						t.Fatalf("cut %d: repairs.json: %v", k, err)
					}
					if len(recs) != 1 || recs[0]["file"] != "post_tool_use.json" {
						t.Fatalf("cut %d: repairs = %v", k, recs)
					}
				} else if partial := bytes.Contains(st, []byte(`"n":100`)) && !bytes.Contains(st, torn); partial {
					t.Fatalf("cut %d: a partial entry was dropped without a note in repairs.json", k)
				}
			}
		})
	}
}

// A repair that is itself interrupted (its new bytes written, the longer
// old tail not yet cut) is repaired by the next append.
func TestInterruptedRepair(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.json")
	data := baseLog(t, p, 2)
	long := entry(100)
	long = append(long[:len(long)-2], []byte(strings.Repeat("y", 500)+`"}}`)...)
	torn := append(append(append([]byte(nil), data[:len(data)-3]...), ",\n"...), long[:400]...)
	// The repair wrote ",\n<entry 3>\n]\n" after entry 2 but did not truncate.
	cut := len(data) - 3
	w := append(append([]byte(",\n"), entry(3)...), "\n]\n"...)
	st := append(append([]byte(nil), torn[:cut]...), w...)
	st = append(st, torn[cut+len(w):]...)
	if err := os.WriteFile(p, st, 0o644); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, p, entry(4), Options{})
	if got := seq(entries(t, p)...); got != seq(1, 2, 3, 4) {
		t.Errorf("entries = %s", got)
	}
	if asides, _ := filepath.Glob(p + ".corrupt-*"); len(asides) != 0 {
		t.Errorf("log set aside: %v", asides)
	}
}

func TestRotation(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "stop.json")
	opt := Options{MaxBytes: 600}
	for i := 1; i <= 12; i++ {
		mustAppend(t, p, entry(i), opt)
	}
	rotated, _ := filepath.Glob(filepath.Join(dir, "stop.*.json"))
	if len(rotated) < 2 {
		t.Fatalf("rotated files: %v", rotated)
	}
	// Every entry is in exactly one file, oldest first, and each parses.
	var all []int
	for n := 1; ; n++ {
		rp := filepath.Join(dir, fmt.Sprintf("stop.%d.json", n))
		if _, err := os.Stat(rp); err != nil {
			break
		}
		all = append(all, entries(t, rp)...)
	}
	all = append(all, entries(t, p)...)
	if seq(all...) != seq(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12) {
		t.Errorf("entries across rotations = %v", all)
	}
	// No rotation without a limit.
	q := filepath.Join(dir, "pre_compact.json")
	for i := 0; i < 20; i++ {
		mustAppend(t, q, entry(i), Options{})
	}
	if r, _ := filepath.Glob(filepath.Join(dir, "pre_compact.*.json")); len(r) != 0 {
		t.Errorf("rotated without MaxBytes: %v", r)
	}
}

func TestRepairsLogHasNoRepairLog(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, Name(Repairs, "")+Ext)
	if err := os.WriteFile(p, []byte("[\n{\"a\":1},\n{\"torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Append(ctx, p, []byte(`{"a":2}`), Options{NoRepairLog: true}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if string(data) != "[\n{\"a\":1},\n{\"a\":2}\n]\n" {
		t.Errorf("repairs.json = %q", data)
	}
}
