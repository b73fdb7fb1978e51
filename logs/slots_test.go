//go:build unix

package logs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// Every log name logs produces for a known event, and its own logs, has a
// slot of its own; anything else has none (and uses a marker folder).
func TestSlotAssignment(t *testing.T) {
	if len(slotNames) > slotsSize {
		t.Fatalf("%d slot names do not fit in %d bytes", len(slotNames), slotsSize)
	}
	owner := map[int]string{}
	names := []string{Name(Decisions, ""), Name(Rejected, ""), Name(Repairs, "")}
	for _, ev := range hookio.KnownEvents {
		names = append(names, Name(Events, ev))
	}
	for _, n := range names {
		i := slotOf(n + Ext)
		if i < 0 {
			t.Errorf("%s%s has no slot: add it at the end of slotNames", n, Ext)
			continue
		}
		if o, ok := owner[i]; ok {
			t.Errorf("%s and %s share slot %d", o, n, i)
		}
		owner[i] = n
	}
	seen := map[string]bool{}
	for _, n := range slotNames {
		if seen[n] {
			t.Errorf("%s listed twice", n)
		}
		seen[n] = true
	}
	tests := []struct {
		file string
		want int
	}{
		// Slots never move: a slot left by an older spcstr must name
		// the same log to this one.
		{"decisions.json", 0},
		{"rejected.json", 1},
		{"repairs.json", 2},
		{"session_start.json", 3},
		{"pre_tool_use.json", 9},
		{"post_tool_use.json", 12},
		{"post_model_switch.json", 35},
		// No slot: a marker folder instead.
		{"some_future_event.json", -1},
		{"event_decisions.json", -1},
		{"pre_tool_use.1.json", -1},
		{"pre_tool_use", -1},
		{".pre_tool_use.json.lock", -1},
		{"", -1},
	}
	for _, tt := range tests {
		if got := slotOf(tt.file); got != tt.want {
			t.Errorf("slotOf(%q) = %d, want %d", tt.file, got, tt.want)
		}
	}
}

// slots reads dir's slots file whole.
func slots(t *testing.T, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, SlotsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != slotsSize {
		t.Fatalf("slots file is %d bytes, want %d", len(b), slotsSize)
	}
	return b
}

// leaveSlot sets the slot of the log at p as a killed appender leaves it:
// set, with the lock free.
func leaveSlot(t *testing.T, p string) {
	t.Helper()
	root, err := os.OpenRoot(filepath.Dir(p))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	f, err := openSlots(root, filepath.Base(p))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := setSlot(f, slotOf(filepath.Base(p)), 1); err != nil {
		t.Fatal(err)
	}
}

// tearLog writes a log whose last append was cut off: entries 1..n, then
// half of entry 100.
func tearLog(t *testing.T, p string, n int) []byte {
	t.Helper()
	data := baseLog(t, p, n)
	half := entry(100)
	torn := append(append(data[:len(data)-3:len(data)-3], ",\n"...), half[:len(half)/2]...)
	if err := os.WriteFile(p, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	return torn
}

func TestSlotSetAndClear(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pre_tool_use.json")
	for i := 1; i <= 3; i++ {
		mustAppend(t, p, entry(i), Options{Sync: i == 2})
	}
	if got := seq(entries(t, p)...); got != seq(1, 2, 3) {
		t.Fatalf("entries = %s", got)
	}
	if s := slots(t, dir); !bytes.Equal(s, make([]byte, slotsSize)) {
		t.Errorf("a slot is left set after whole appends: %v", s[:len(slotNames)])
	}
	if _, err := os.Lstat(filepath.Join(dir, InflightDir)); err == nil {
		t.Error("an append to a log with a slot made a marker folder")
	}

	// Under the lock, the mark is the log's own byte and nothing else.
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	m := markInflight(root, "post_tool_use.json")
	want := make([]byte, slotsSize)
	want[slotOf("post_tool_use.json")] = 1
	if s := slots(t, dir); !bytes.Equal(s, want) {
		t.Errorf("set: slots %v", s[:len(slotNames)])
	}
	m.clear()
	m.close()
	if s := slots(t, dir); !bytes.Equal(s, make([]byte, slotsSize)) {
		t.Errorf("clear: slots %v", s[:len(slotNames)])
	}
}

// A log torn by a killed appender (its slot set, its lock free) is whole
// after the next hook, whatever its event: the check mends it and clears
// the slot, and appends to other logs leave the slot alone.
func TestSlotLeftByKilledAppender(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pre_tool_use.json")
	tearLog(t, p, 2)
	leaveSlot(t, p)
	// The next hook is a Stop: it appends to another log, which leaves
	// pre_tool_use's slot as it is ...
	other := filepath.Join(dir, "stop.json")
	mustAppend(t, other, entry(7), Options{Sync: true})
	if s := slots(t, dir); s[slotOf("pre_tool_use.json")] != 1 || s[slotOf("stop.json")] != 0 {
		t.Fatalf("another log's append changed the slots: %v", s[:len(slotNames)])
	}
	// ... and its check mends the torn log.
	if err := RepairInterrupted(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if got := seq(entries(t, p)...); got != seq(1, 2) {
		t.Errorf("entries after repair = %s", got)
	}
	if s := slots(t, dir); !bytes.Equal(s, make([]byte, slotsSize)) {
		t.Errorf("slot not cleared: %v", s[:len(slotNames)])
	}
	data, err := os.ReadFile(filepath.Join(dir, "repairs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	if err := json.Unmarshal(data, &recs); err != nil || len(recs) != 1 || recs[0]["file"] != "pre_tool_use.json" {
		t.Errorf("repairs.json = %s (%v)", data, err)
	}
	// Nothing left to do: the check changes nothing now.
	before, _ := os.ReadFile(p)
	if err := RepairInterrupted(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
		t.Error("a second check changed the log")
	}
}

// A slot set while its log's lock is held is a live append's: the check
// leaves the log and the slot alone, and mends the log once the holder is
// gone without clearing the slot.
func TestSlotOfLiveAppendNotTouched(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "post_tool_use.json")
	torn := tearLog(t, p, 1)
	leaveSlot(t, p)
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	unlock, err := safefs.Lock(ctx, root, lockName("post_tool_use.json"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- RepairInterrupted(ctx, dir) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the check waited for a held lock")
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, torn) {
		t.Error("the check touched a log whose lock is held")
	}
	if s := slots(t, dir); s[slotOf("post_tool_use.json")] != 1 {
		t.Error("the check cleared a live append's slot")
	}
	unlock()
	if err := RepairInterrupted(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if got := seq(entries(t, p)...); got != seq(1) {
		t.Errorf("entries = %s", got)
	}
}

// The check reads the slots without a lock; what it acts on is the slot
// read again under the lock. An appender that finished in between has
// cleared it: the log is not touched.
func TestSlotClearedBeforeLock(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "stop.json")
	torn := tearLog(t, p, 1) // torn, but not by a killed appender
	mustAppend(t, filepath.Join(dir, "decisions.json"), entry(1), Options{})
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	if err := repairSlot(ctx, root, ".", slotOf("stop.json")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, torn) {
		t.Error("a log whose slot was clear under the lock was repaired")
	}
}

// Old projects still have marker folders, and logs without a slot still
// make them: both are mended.
func TestLegacyMarkerFolder(t *testing.T) {
	for _, name := range []string{"pre_tool_use.json", "some_future_event.json"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, name)
			mustAppend(t, p, entry(1), Options{})
			if _, err := os.Lstat(filepath.Join(dir, InflightDir)); (err == nil) != (slotOf(name) < 0) {
				t.Errorf("marker folder exists: %v, want %v", err == nil, slotOf(name) < 0)
			}
			must(t, os.Remove(p))
			tearLog(t, p, 2)
			if err := os.MkdirAll(filepath.Join(dir, InflightDir, name), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := RepairInterrupted(ctx, dir); err != nil {
				t.Fatal(err)
			}
			if got := seq(entries(t, p)...); got != seq(1, 2) {
				t.Errorf("entries = %s", got)
			}
			if m, _ := os.ReadDir(filepath.Join(dir, InflightDir)); len(m) != 0 {
				t.Errorf("markers left: %d", len(m))
			}
		})
	}
}

// A slots file planted by the repository is never trusted: the check
// ignores it and returns at once; the next append sets it aside (never
// writing through it) and starts a new one. Bytes outside the known slots
// cause no work; a file of all-set slots costs one pass.
func TestHostileSlotsFile(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "target")
	tests := []struct {
		name  string
		plant func(t *testing.T, dir, slots string)
	}{
		{"symlink out", func(t *testing.T, dir, slots string) {
			must(t, os.WriteFile(outside, make([]byte, slotsSize), 0o644))
			must(t, os.Symlink(outside, slots))
		}},
		{"symlink to a log", func(t *testing.T, dir, slots string) {
			// A log of exactly the slots file's size.
			body := "[\n{\"x\":\"" + strings.Repeat("a", slotsSize-14) + "\"}\n]\n"
			must(t, os.WriteFile(filepath.Join(dir, "notification.json"), []byte(body), 0o644))
			must(t, os.Symlink("notification.json", slots))
		}},
		{"dangling symlink", func(t *testing.T, dir, slots string) {
			must(t, os.Symlink(filepath.Join(dir, "nowhere"), slots))
		}},
		{"/dev/zero", func(t *testing.T, dir, slots string) { must(t, os.Symlink("/dev/zero", slots)) }},
		{"FIFO", func(t *testing.T, dir, slots string) { must(t, syscall.Mkfifo(slots, 0o644)) }},
		{"folder", func(t *testing.T, dir, slots string) {
			must(t, os.MkdirAll(filepath.Join(slots, "x"), 0o755))
		}},
		{"huge", func(t *testing.T, dir, slots string) {
			f, err := os.Create(slots)
			must(t, err)
			must(t, f.Truncate(1<<40))
			f.Close()
		}},
		{"short", func(t *testing.T, dir, slots string) { must(t, os.WriteFile(slots, []byte{1, 1, 1}, 0o644)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			sp := filepath.Join(dir, SlotsFile)
			tt.plant(t, dir, sp)
			before := snapshot(t, dir, outside)
			done := make(chan error, 1)
			go func() { done <- RepairInterrupted(ctx, dir) }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("check: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the check blocked on a planted slots file")
			}
			if after := snapshot(t, dir, outside); after != before {
				t.Errorf("the check changed files:\n%s\n→\n%s", before, after)
			}
			go func() { done <- Append(ctx, filepath.Join(dir, "stop.json"), entry(1), Options{Sync: true}) }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("append: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the append blocked on a planted slots file")
			}
			if fi, err := os.Lstat(sp); err != nil || !fi.Mode().IsRegular() || fi.Size() != slotsSize {
				t.Errorf("no new slots file: %v %v", fi, err)
			}
			if !bytes.Equal(slots(t, dir), make([]byte, slotsSize)) {
				t.Error("new slots file not clear")
			}
			if asides, _ := filepath.Glob(sp + ".corrupt-*"); len(asides) != 1 {
				t.Errorf("planted file not set aside: %v", asides)
			}
			if b, err := os.ReadFile(outside); err == nil && !bytes.Equal(b, make([]byte, slotsSize)) {
				t.Error("wrote through a symlink out of the folder")
			}
			if b, err := os.ReadFile(filepath.Join(dir, "notification.json")); err == nil && !json.Valid(b) {
				t.Error("wrote through a symlink into a log")
			}
		})
	}

	t.Run("every byte set", func(t *testing.T) {
		dir := t.TempDir()
		all := bytes.Repeat([]byte{0xff}, slotsSize)
		must(t, os.WriteFile(filepath.Join(dir, SlotsFile), all, 0o644))
		if err := RepairInterrupted(ctx, dir); err != nil {
			t.Fatal(err)
		}
		s := slots(t, dir)
		if !bytes.Equal(s[:len(slotNames)], make([]byte, len(slotNames))) {
			t.Errorf("known slots not cleared: %v", s[:len(slotNames)])
		}
		if !bytes.Equal(s[len(slotNames):], all[len(slotNames):]) {
			t.Error("slots without a name were touched")
		}
		logsMade, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		if len(logsMade) != 0 {
			t.Errorf("the check created logs: %v", logsMade)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// snapshot lists the files of dir (not following symlinks) and the target
// file outside, with sizes, for comparison.
func snapshot(t *testing.T, dir, outside string) string {
	t.Helper()
	var b strings.Builder
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		fi, err := os.Lstat(filepath.Join(dir, e.Name()))
		if err == nil {
			fmt.Fprintf(&b, "%s %v %d\n", e.Name(), fi.Mode(), fi.Size())
		}
	}
	if data, err := os.ReadFile(outside); err == nil {
		b.WriteString("outside " + string(data) + "\n")
	}
	return b.String()
}

// Options.Flush leaves the fsync (and the file) to the caller: the entry is
// in the log and the lock free before it runs, and Sync is safe to repeat.
// A new log is written whole, with nothing left to flush.
func TestAppendLeavesFlushToCaller(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".spcstr", "logs", "stop.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	var first Flush
	mustAppend(t, p, entry(1), Options{Flush: &first})
	if first.f != nil {
		t.Fatal("a new log left a file to flush")
	}
	var fl Flush
	mustAppend(t, p, entry(2), Options{Flush: &fl})
	if fl.f == nil {
		t.Fatal("the append did not leave its fsync to the caller")
	}
	// Before the caller's fsync: the entry is readable and another append
	// does not wait for the flush.
	mustAppend(t, p, entry(3), Options{})
	if got := countEntries(t, p); got != 3 {
		t.Fatalf("%d entries before the flush, want 3", got)
	}
	fl.Sync()
	fl.Sync()
	if fl.f != nil {
		t.Fatal("Sync did not close the file")
	}
	var none *Flush
	none.Sync()
}

func countEntries(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	return len(entries)
}
