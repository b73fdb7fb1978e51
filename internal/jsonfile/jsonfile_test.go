package jsonfile

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

type doc struct {
	N    int      `json:"n"`
	Tags []string `json:"tags"`
}

func TestLockPath(t *testing.T) {
	if got := LockPath("/a/b/state.json"); got != "/a/b/.state.json.lock" {
		t.Errorf("LockPath = %q", got)
	}
}

func TestWriteAndRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "d.json")
	if err := WriteJSON(p, doc{N: 3, Tags: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if !strings.HasSuffix(string(data), "}\n") || !strings.Contains(string(data), "\n  \"n\": 3") {
		t.Errorf("WriteJSON layout: %q", data)
	}
	var d doc
	if err := Read(p, &d); err != nil || d.N != 3 || len(d.Tags) != 1 {
		t.Fatalf("Read = %+v, %v", d, err)
	}
	// Atomic replacement leaves no temp files behind.
	if err := Write(p, []byte(`{"n":4}`)); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files after writes: %v", entries)
	}
	if err := Read(filepath.Join(dir, "missing.json"), &d); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if err := WriteJSON(p, make(chan int)); err == nil {
		t.Error("WriteJSON of an unencodable value succeeded")
	}
}

func TestReadSetsAsideCorrupt(t *testing.T) {
	for name, content := range map[string]string{
		"truncated": `{"n":`,
		"empty":     ``,
		"spaces":    "  \n",
		"binary":    "\x00\xff\x10",
		"type":      `{"n":"three"}`,
		"array":     `[]`,
		"trailing":  `{"n":1}}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "d.json")
			_ = os.WriteFile(p, []byte(content), 0o644)
			var d doc
			err := Read(p, &d)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Read: %v", err)
			}
			if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
				t.Error("corrupt file still in place")
			}
			asides, _ := filepath.Glob(p + ".corrupt-*")
			if len(asides) != 1 || !strings.Contains(err.Error(), filepath.Base(asides[0])) {
				t.Fatalf("set aside: %v (err %v)", asides, err)
			}
			if kept, _ := os.ReadFile(asides[0]); string(kept) != content {
				t.Errorf("set-aside bytes differ")
			}
			if strings.HasSuffix(asides[0], ".json") {
				t.Error("set-aside name still ends in .json")
			}
		})
	}
}

func TestSetAsideName(t *testing.T) {
	now := time.Date(2026, 5, 1, 10, 2, 3, 456789000, time.FixedZone("x", 3600))
	if got := SetAsideName("/a/s.json", now); got != "/a/s.json.corrupt-20260501T090203.456789000Z" {
		t.Errorf("SetAsideName = %q", got)
	}
}

func TestUpdate(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "d.json") // parent created by Lock
	ctx := context.Background()

	var d doc
	err := Update(ctx, p, &d, func(fresh bool, readErr error) (bool, error) {
		if !fresh || readErr != nil {
			t.Errorf("first update: fresh=%v readErr=%v", fresh, readErr)
		}
		d.N = 1
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// changed == false writes nothing.
	before, _ := os.Stat(p)
	d = doc{}
	err = Update(ctx, p, &d, func(fresh bool, _ error) (bool, error) {
		if fresh || d.N != 1 {
			t.Errorf("second update: fresh=%v d=%+v", fresh, d)
		}
		d.N = 99
		return false, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(p)
	if !os.SameFile(before, after) {
		t.Error("unchanged update replaced the file")
	}
	// An error from fn writes nothing and is returned.
	boom := errors.New("boom")
	d = doc{}
	if err := Update(ctx, p, &d, func(bool, error) (bool, error) { d.N = 7; return true, boom }); !errors.Is(err, boom) {
		t.Errorf("fn error: %v", err)
	}
	var got doc
	if err := Read(p, &got); err != nil || got.N != 1 {
		t.Errorf("after no-op updates: %+v, %v", got, err)
	}
	// A corrupt document: fresh, with the read error, and set aside.
	_ = os.WriteFile(p, []byte("{oops"), 0o644)
	d = doc{}
	err = Update(ctx, p, &d, func(fresh bool, readErr error) (bool, error) {
		if !fresh || !errors.Is(readErr, ErrCorrupt) {
			t.Errorf("corrupt: fresh=%v readErr=%v", fresh, readErr)
		}
		d.N = 5
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if asides, _ := filepath.Glob(p + ".corrupt-*"); len(asides) != 1 {
		t.Errorf("asides = %v", asides)
	}
	// A folder or a FIFO where the document belongs is set aside like a
	// corrupt document (never read, never blocked on) and fn starts fresh
	// with the reason.
	if err := os.Mkdir(filepath.Join(dir, "isdir.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"isdir.json", "fifo.json"} {
		p := filepath.Join(dir, name)
		err = Update(ctx, p, &d, func(fresh bool, readErr error) (bool, error) {
			if !fresh || !errors.Is(readErr, ErrCorrupt) {
				t.Errorf("%s: fresh=%v readErr=%v", name, fresh, readErr)
			}
			d.N = 3
			return true, nil
		})
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: not replaced by a document: %v", name, err)
		}
		if asides, _ := filepath.Glob(p + ".corrupt-*"); len(asides) != 1 {
			t.Errorf("%s: asides = %v", name, asides)
		}
	}
}

// Nothing below .spcstr/ is followed out of it: a symlinked folder or
// document or lock file leading outside makes the write fail and leaves
// the outside untouched.
func TestNoEscapeFromSpcstr(t *testing.T) {
	ctx := context.Background()
	for _, link := range []string{"sessions", "sessions/s1", "sessions/s1/state.json", "sessions/s1/.state.json.lock"} {
		t.Run(link, func(t *testing.T) {
			project, outside := t.TempDir(), t.TempDir()
			spc := filepath.Join(project, ".spcstr")
			if err := os.MkdirAll(filepath.Join(spc, "sessions", "s1"), 0o755); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(outside, "target")
			if filepath.Ext(link) == "" && !strings.HasSuffix(link, ".lock") {
				_ = os.MkdirAll(filepath.Join(target, "s1"), 0o755)
			}
			_ = os.RemoveAll(filepath.Join(spc, link))
			if err := os.Symlink(target, filepath.Join(spc, link)); err != nil {
				t.Fatal(err)
			}
			var d doc
			err := Update(ctx, filepath.Join(spc, "sessions", "s1", "state.json"), &d, func(bool, error) (bool, error) {
				d.N = 1
				return true, nil
			})
			if err == nil {
				t.Error("update through a symlink out of .spcstr succeeded")
			}
			var found []string
			_ = filepath.Walk(outside, func(p string, fi os.FileInfo, err error) error {
				if err == nil && !fi.IsDir() {
					found = append(found, p)
				}
				return nil
			})
			if len(found) > 0 {
				t.Errorf("files written outside: %v", found)
			}
		})
	}
	// .spcstr itself may be a symlink the user made.
	project, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(project, ".spcstr")); err != nil {
		t.Fatal(err)
	}
	var d doc
	if err := Update(ctx, filepath.Join(project, ".spcstr", "sessions", "s1", "state.json"), &d, func(bool, error) (bool, error) {
		return true, nil
	}); err != nil {
		t.Errorf("symlinked .spcstr: %v", err)
	}
}

func TestUpdateParallel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "counter.json")
	const n = 50
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var d doc
			if err := Update(context.Background(), p, &d, func(bool, error) (bool, error) {
				d.N++
				return true, nil
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	var d doc
	if err := Read(p, &d); err != nil || d.N != n {
		t.Errorf("counter = %d, want %d (%v)", d.N, n, err)
	}
}

func TestLockTimeoutAndCancel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d.json")
	unlock, err := Lock(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	old := LockTimeout
	LockTimeout = 50 * time.Millisecond
	defer func() { LockTimeout = old }()

	if _, err := Lock(context.Background(), p); !errors.Is(err, ErrLockTimeout) {
		t.Errorf("held lock: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Lock(ctx, p); err == nil {
		t.Error("Lock with a cancelled context succeeded while held")
	}
	var d doc
	if err := Update(context.Background(), p, &d, func(bool, error) (bool, error) { return true, nil }); !errors.Is(err, ErrLockTimeout) {
		t.Errorf("Update under held lock: %v", err)
	}
	unlock()
	u2, err := Lock(context.Background(), p)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	u2()
}

func TestDecode(t *testing.T) {
	var v map[string]any
	if err := Decode([]byte("  \n"), &v); err == nil {
		t.Error("blank decoded")
	}
	if err := Decode([]byte(" {\"a\":1}\n"), &v); err != nil || v["a"] != json.Number("1") && v["a"] != float64(1) {
		t.Errorf("Decode = %v, %v", v, err)
	}
}

// UpdateWithLock locks the named sidecar (another program's lock file),
// not LockPath, and takes only a plain file name.
func TestUpdateWithLock(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "main.json")
	var d doc
	err := UpdateWithLock(context.Background(), p, "main.lock", &d, func(bool, error) (bool, error) {
		d.N = 7
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "main.lock")); err != nil {
		t.Errorf("sidecar lock: %v", err)
	}
	if _, err := os.Stat(LockPath(p)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the default lock file was used too: %v", err)
	}
	if err := Read(p, &d); err != nil || d.N != 7 {
		t.Errorf("Read = %+v, %v", d, err)
	}
	for _, bad := range []string{"", "../x.lock", "sub/x.lock"} {
		if err := UpdateWithLock(context.Background(), p, bad, &d, func(bool, error) (bool, error) { return false, nil }); err == nil {
			t.Errorf("lock name %q accepted", bad)
		}
	}
}
