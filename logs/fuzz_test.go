package logs

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLogRepair damages the tail of a log written by Append (cut at any
// byte, then arbitrary bytes without a newline added: a torn or garbled last
// line) and appends once more. Whatever the
// damage, Append succeeds and leaves a strict JSON array ending with the new
// entry. When the damage is only a cut (what a crash leaves), or the log is
// not set aside, every entry whose line was complete before the damage is
// still there, in order. A log that is set aside is kept byte for byte.
// Seeds live in testdata/fuzz/FuzzLogRepair, so plain `go test` runs them.
func FuzzLogRepair(f *testing.F) {
	f.Add(uint8(3), uint16(5), []byte(""))
	f.Add(uint8(3), uint16(1), []byte(""))
	f.Add(uint8(1), uint16(30), []byte(`{"partial`))
	f.Add(uint8(2), uint16(3), []byte("]"))
	f.Add(uint8(2), uint16(3), []byte(",\n["))
	f.Add(uint8(0), uint16(0), []byte("\x00\xff"))
	f.Fuzz(func(t *testing.T, nEntries uint8, cutBack uint16, junk []byte) {
		n := int(nEntries % 6)
		dir := t.TempDir()
		p := filepath.Join(dir, "x.json")
		var base [][]byte
		for i := 0; i < n; i++ {
			e := entry(i)
			base = append(base, e)
			if err := Append(ctx, p, e, Options{}); err != nil {
				t.Fatal(err)
			}
		}
		data, _ := os.ReadFile(p)
		cut := len(data) - int(cutBack)%(len(data)+1)
		junk = bytes.ReplaceAll(junk, []byte("\n"), []byte(" "))
		damaged := append(append([]byte(nil), data[:cut]...), junk...)
		if err := os.WriteFile(p, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		// Entries whose whole line (up to its newline) survived the cut.
		intact := 0
		for intact < len(base) {
			i := bytes.Index(data[:cut], base[intact])
			if i < 0 || bytes.IndexByte(data[i:cut], '\n') < 0 {
				break
			}
			intact++
		}

		last := []byte(`{"input":{"n":999}}`)
		if err := Append(ctx, p, last, Options{}); err != nil {
			t.Fatalf("Append after damage: %v", err)
		}
		out, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var arr []json.RawMessage
		if err := json.Unmarshal(out, &arr); err != nil {
			t.Fatalf("log does not parse after repair: %v\ndamaged: %q\nresult: %q", err, tail(damaged), tail(out))
		}
		if len(arr) == 0 || !bytes.Equal(arr[len(arr)-1], last) {
			t.Fatalf("new entry is not last: %q", tail(out))
		}
		asides, _ := filepath.Glob(p + ".corrupt-*")
		if len(asides) > 0 {
			if len(junk) == 0 && intact > 0 {
				t.Fatalf("a log only cut short was set aside\ndamaged: %q", tail(damaged))
			}
			kept, _ := os.ReadFile(asides[0])
			if !bytes.Equal(kept, damaged) {
				t.Fatal("set-aside log differs from the damaged file")
			}
			return
		}
		if len(arr) < intact+1 {
			t.Fatalf("%d entries after repair, %d were complete\ndamaged: %q\nresult: %q", len(arr), intact, tail(damaged), tail(out))
		}
		for i := 0; i < intact; i++ {
			if !bytes.Equal(arr[i], base[i]) {
				t.Fatalf("entry %d changed or lost\ndamaged: %q\nresult: %q", i, tail(damaged), tail(out))
			}
		}
		if rep, err := os.ReadFile(filepath.Join(dir, Name(Repairs, "")+Ext)); err == nil && !json.Valid(rep) {
			t.Fatalf("repairs.json does not parse: %q", rep)
		}
	})
}
