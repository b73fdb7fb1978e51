package logs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeLog writes entries 1..n in spcstr's layout and returns the path.
func writeLog(t *testing.T, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pre_tool_use.json")
	var b strings.Builder
	b.WriteString("[\n")
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(",\n")
		}
		b.Write(entry(i))
	}
	if n > 0 {
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTailWindow(t *testing.T) {
	// The last three entry lines, the closing bracket, and one byte of the
	// line before.
	last3 := int64(3*len(entry(100)) + 8)
	tests := []struct {
		name   string
		n      int
		window int64
		want   string
	}{
		{"small log, whole", 3, 1 << 20, seq(1, 2, 3)},
		{"last entries only", 100, last3, seq(98, 99, 100)},
		{"window inside the last line", 100, 10, seq()},
		{"empty log", 0, 1 << 20, seq()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeLog(t, tt.n)
			var got []int
			next, err := TailWindow(p, tt.window, func(raw []byte) error {
				got = append(got, nOf(t, raw))
				return nil
			})
			if err != nil || seq(got...) != tt.want {
				t.Fatalf("got %v, %v; want %s", got, err, tt.want)
			}
			// Following from next sees only what is appended later.
			mustAppend(t, p, entry(1000), Options{})
			got = nil
			if _, _, err := Tail(p, next, func(raw []byte) error {
				got = append(got, nOf(t, raw))
				return nil
			}); err != nil || seq(got...) != seq(1000) {
				t.Fatalf("after window: %v, %v", got, err)
			}
		})
	}
	if next, err := TailWindow(filepath.Join(t.TempDir(), "missing.json"), 100, nil); next != 0 || err != nil {
		t.Fatalf("missing log: %d, %v", next, err)
	}
}

func TestBackward(t *testing.T) {
	p := writeLog(t, 2000) // about 300 KB: more than one chunk
	var got []int
	err := Backward(p, 1<<30, func(raw []byte) error {
		got = append(got, nOf(t, raw))
		return nil
	})
	if err != nil || len(got) != 2000 || got[0] != 2000 || got[1999] != 1 {
		t.Fatalf("whole log backward: %d entries, first %v, err %v", len(got), got[:min(3, len(got))], err)
	}
	for i := 1; i < len(got); i++ {
		if got[i] != got[i-1]-1 {
			t.Fatalf("entry %d is %d after %d: a line cut between chunks was lost", i, got[i], got[i-1])
		}
	}

	got = nil
	err = Backward(p, 1<<30, func(raw []byte) error {
		if n := nOf(t, raw); n%500 == 0 {
			got = append(got, n)
		}
		if len(got) == 2 {
			return ErrStop
		}
		return nil
	})
	if err != nil || seq(got...) != seq(2000, 1500) {
		t.Fatalf("search with stop: %v, %v", got, err)
	}

	got = nil
	_ = Backward(p, 1, func(raw []byte) error { got = append(got, nOf(t, raw)); return nil })
	if len(got) == 0 || len(got) == 2000 {
		t.Fatalf("maxBytes 1 should read exactly one chunk, got %d entries", len(got))
	}

	boom := errors.New("boom")
	if err := Backward(p, 1<<30, func([]byte) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("callback error: %v", err)
	}
	if err := Backward(filepath.Join(t.TempDir(), "missing.json"), 1, nil); err != nil {
		t.Fatalf("missing log: %v", err)
	}
}

func TestBackwardTornTail(t *testing.T) {
	e := func(n int) string { return string(entry(n)) }
	for name, content := range map[string]string{
		"torn mid entry":  "[\n" + e(1) + ",\n" + e(2) + ",\n" + e(3)[:40],
		"torn separator":  "[\n" + e(1) + ",\n" + e(2) + ",]\n",
		"intact":          "[\n" + e(1) + ",\n" + e(2) + "\n]\n",
		"torn after sep.": "[\n" + e(1) + ",\n" + e(2) + ",\n",
	} {
		p := filepath.Join(t.TempDir(), "x.json")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		var got []int
		if err := Backward(p, 1<<20, func(raw []byte) error { got = append(got, nOf(t, raw)); return nil }); err != nil || seq(got...) != seq(2, 1) {
			t.Errorf("%s: %v, %v", name, got, err)
		}
	}
}

func TestStream(t *testing.T) {
	e := func(n int) string { return string(entry(n)) }
	pretty := "[\n  " + e(1) + ",\n  {\n    \"input\": {\"n\": 2}\n  }\n]\n"
	tests := []struct {
		name     string
		content  string
		want     string
		restarts int
	}{
		{"spcstr layout", "[\n" + e(1) + ",\n" + e(2) + "\n]\n", seq(1, 2), 0},
		{"torn tail", "[\n" + e(1) + ",\n" + e(2) + ",\n" + e(3)[:40], seq(1, 2), 0},
		{"other layout read again", pretty, seq(1, 2), 1},
		{"empty", "", seq(), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x.json")
			if err := os.WriteFile(p, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			var got []int
			restarts := 0
			err := Stream(p, func() { restarts++; got = nil }, func(raw []byte) error {
				got = append(got, nOf(t, raw))
				return nil
			})
			if err != nil || seq(got...) != tt.want || restarts != tt.restarts {
				t.Fatalf("got %v (restarts %d), %v; want %s (restarts %d)", got, restarts, err, tt.want, tt.restarts)
			}
		})
	}

	// A line longer than the read buffer is delivered whole.
	long := strings.Replace(string(entry(7)), "entry 7", strings.Repeat("x", 3*streamBuf), 1)
	p := filepath.Join(t.TempDir(), "long.json")
	if err := os.WriteFile(p, []byte("[\n"+long+",\n"+string(entry(8))+"\n]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []int
	if err := Stream(p, func() { t.Fatal("restart") }, func(raw []byte) error { got = append(got, nOf(t, raw)); return nil }); err != nil || seq(got...) != seq(7, 8) {
		t.Fatalf("long line: %v, %v", got, err)
	}

	got = nil
	if err := Stream(p, nil, func(raw []byte) error { got = append(got, nOf(t, raw)); return ErrStop }); err != nil || seq(got...) != seq(7) {
		t.Fatalf("stop: %v, %v", got, err)
	}
	if err := Stream(filepath.Join(t.TempDir(), "missing.json"), nil, nil); err != nil {
		t.Fatalf("missing log: %v", err)
	}
}
